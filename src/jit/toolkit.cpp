#include "jit/toolkit.hpp"

#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"

namespace kk3::jit {
namespace fs = std::filesystem;

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  return archs;
}

std::vector<located_dir> cuda_include_candidates() {
  std::vector<located_dir> out;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v && *v) {
      out.push_back({fs::path(v) / "include", std::string("from $") + var});
    }
  }
  out.push_back({fs::path(KK3_BUILD_CUDA_INCLUDE_DIR), "the toolkit found at build time"});
  out.push_back({fs::path("/usr/local/cuda/include"), "the default /usr/local/cuda"});
  return out;
}

located_dir first_cuda_include_dir(const std::vector<located_dir>& candidates) {
  for (const located_dir& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c.dir / "cuda_fp16.h", ec)) return c;
  }
  std::string tried;
  for (const located_dir& c : candidates) tried += "\n  " + c.dir.string() + " (" + c.how + ")";
  throw error(
      error_kind::compile,
      "no CUDA include folder with cuda_fp16.h was found; set CUDA_HOME (or CUDA_PATH) to the "
      "CUDA toolkit's folder. Tried:" +
          tried);
}

located_dir find_cuda_include_dir() {
  try {
    return first_cuda_include_dir(cuda_include_candidates());
  } catch (const error&) {
    return {};
  }
}

located_dir require_cuda_include_dir() {
  return first_cuda_include_dir(cuda_include_candidates());
}

}  // namespace kk3::jit
