#pragma once
// NVTX3 ranges in kk3tune's own domain ("kk3tune"), for Nsight Systems and Nsight Compute.
//
// Nesting used by the tool: sweep -> family -> shape -> variant -> compile | verify | measure,
// and profile -> family -> shape -> variant for `kk3tune profile`. Range names never contain
// '/', which ncu's --nvtx-include would read as nesting. Names are registered strings
// (registered once per distinct name); a range about a shape carries T as an int64 payload.
#include <string>

namespace kk3::nvtx {

/// Pushes a range on construction and pops it on destruction, on the calling thread.
class scoped_range {
 public:
  /// `tokens` >= 0 is attached as the range's int64 payload (the token count T).
  explicit scoped_range(const std::string& name, long long tokens = -1);
  ~scoped_range();
  scoped_range(const scoped_range&) = delete;
  scoped_range& operator=(const scoped_range&) = delete;
};

}  // namespace kk3::nvtx
