#pragma once
// What a sweep worker process is doing, in memory shared with its supervisor (issue 8): the
// variant whose GPU work is running and since when, and, when the worker gives up on a fault,
// which variant caused it and why. The supervisor reads it to stop a hanging variant after
// --variant-timeout and to name the variant that ended the worker.
//
// In the worker every call is a no-op until attach() found the region (KK3_WATCH_FD), so the
// timer and the verifier can mark their variant work unconditionally.
#include <cstdint>
#include <string>

namespace kk3::watch {

/// The environment variable that passes the region's file descriptor to the worker.
inline constexpr const char* k_env = "KK3_WATCH_FD";

/// A consistent copy of the region.
struct snapshot {
  bool active = false;  ///< inside a variant's GPU work now
  std::string shape;    ///< the shape being swept (family/mode/H/NB)
  long long tokens = 0;
  std::string variant;  ///< the variant of the current (or, after an exception, the last) scope
  double active_s = 0;  ///< how long the current scope has run
  std::string fault_variant;  ///< set by report_fault
  std::string fault_reason;
};

// --- the worker side ---------------------------------------------------------------------------

/// Maps the region named by KK3_WATCH_FD, if set. Returns whether it did.
bool attach();
/// Whether this process runs under a supervisor.
bool attached();
/// The shape and token count the next scopes belong to.
void set_shape(const std::string& shape, long long tokens);
/// Marks GPU work of one variant. A scope left by an exception keeps its variant named (the
/// fault it carries belongs to it); one left normally clears it.
class scope {
 public:
  explicit scope(const std::string& variant);
  ~scope();
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;

 private:
  int m_uncaught;
};
/// The variant the last scope left by an exception named ("" if none).
std::string faulting_variant();
/// Records the variant that ended this worker and why, for the supervisor.
void report_fault(const std::string& variant, const std::string& reason);

// --- the supervisor side -----------------------------------------------------------------------

/// The shared region, created by the supervisor before it starts a worker.
class region {
 public:
  region();
  ~region();
  region(const region&) = delete;
  region& operator=(const region&) = delete;
  int fd() const { return m_fd; }
  snapshot read() const;
  /// Clears it for the next worker.
  void reset();

 private:
  int m_fd = -1;
  void* m_map = nullptr;
};

}  // namespace kk3::watch
