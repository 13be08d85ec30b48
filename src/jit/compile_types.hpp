#pragma once
// What the JIT stage takes and gives: one compile request, one result.
#include <filesystem>
#include <string>
#include <vector>

namespace kk3::jit {

/// One variant to compile for one arch.
struct compile_request {
  std::string label;  ///< names the variant in messages, e.g. "copy_example/default/vec16 @ sm_90a"
  std::filesystem::path source;  ///< the kernel source file
  std::string
      name_expression;  ///< the __global__ to instantiate, e.g. "kk3::copy_kernel<16, 1, 256>"
  std::vector<std::string> options;  ///< variant options: -D defines and family options
  std::string arch;                  ///< e.g. "sm_90a"
};

/// Registers and memory of one compiled kernel, as ptxas reports them; -1 when unknown.
struct resource_usage {
  int registers = -1;          ///< registers per thread
  int spill_store_bytes = -1;  ///< bytes of spill stores
  int spill_load_bytes = -1;   ///< bytes of spill loads
  int shared_bytes = -1;       ///< static shared memory per block, bytes
  int stack_bytes = -1;        ///< stack frame per thread, bytes
};

/// The outcome of one compile request.
struct compile_result {
  std::string label;                 ///< copied from the request
  std::string arch;                  ///< copied from the request
  bool ok = false;                   ///< true when a cubin was produced
  std::string log;                   ///< the whole NVRTC log (ptxas -v output on success)
  std::vector<std::string> options;  ///< the full option list NVRTC was given
  std::string cubin;                 ///< the compiled image (ELF bytes)
  std::string lowered_name;          ///< the mangled kernel name to look up in the module
  resource_usage usage;              ///< from ptxas -v
  double compile_s = 0;              ///< wall time of the NVRTC compile (the original one on a hit)
  bool cache_hit = false;            ///< true when loaded from the on-disk cache
  std::string key;                   ///< the cache key
};

}  // namespace kk3::jit
