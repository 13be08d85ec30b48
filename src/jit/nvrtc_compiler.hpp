#pragma once
// Compiles one kernel variant with NVRTC to a cubin for one arch.
#include <filesystem>
#include <string>
#include <vector>

#include "jit/compile_types.hpp"
#include "jit/include_scan.hpp"

namespace kk3::jit {

/// Throws error(compile) with the call's text, file and line when an NVRTC call fails.
void check_nvrtc(int result, const char* call, const char* file, int line);
#define KK3_NVRTC_CALL(call) \
  ::kk3::jit::check_nvrtc(static_cast<int>(call), #call, __FILE__, __LINE__)

/// Reads registers, spills, shared memory and stack of `lowered_name` from a ptxas -v log.
[[nodiscard]] resource_usage parse_ptxas_log(const std::string& log,
                                             const std::string& lowered_name);

/// NVRTC with kk3tune's include folders and standard options. Thread-safe: each compile
/// has its own nvrtcProgram.
class nvrtc_compiler {
 public:
  nvrtc_compiler(std::filesystem::path kernel_dir, std::filesystem::path cuda_include_dir);

  /// The whole option list for a request: arch, language standard, include folders,
  /// ptxas -v (for resource usage), then the request's own options.
  std::vector<std::string> full_options(const compile_request& request) const;
  /// The request's source and every file it includes.
  std::vector<source_file> sources(const compile_request& request) const;
  /// Compiles without any cache. A compile error is a result with ok == false and the whole
  /// log and options; only a broken NVRTC throws.
  [[nodiscard]] compile_result compile(const compile_request& request) const;

  const std::filesystem::path& kernel_dir() const { return m_kernel_dir; }
  const std::filesystem::path& cuda_include_dir() const { return m_cuda_include_dir; }

 private:
  std::filesystem::path m_kernel_dir;
  std::filesystem::path m_cuda_include_dir;
};

}  // namespace kk3::jit
