#include "device/check.hpp"

#include "core/error.hpp"

namespace kk3::device {

std::string describe(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  const driver_api& d = driver();
  d.cuGetErrorName(result, &name);
  d.cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA_ERROR_UNKNOWN") + ": " + (text ? text : "no description");
}

void check_cu(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  // Errors that poison the context come from kernels; the rest are the driver's.
  const bool sticky = result == CUDA_ERROR_ILLEGAL_ADDRESS || result == CUDA_ERROR_LAUNCH_FAILED ||
                      result == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
                      result == CUDA_ERROR_MISALIGNED_ADDRESS || result == CUDA_ERROR_ASSERT ||
                      result == CUDA_ERROR_HARDWARE_STACK_ERROR ||
                      result == CUDA_ERROR_INVALID_PC || result == CUDA_ERROR_LAUNCH_TIMEOUT ||
                      result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  throw error(sticky ? error_kind::launch : error_kind::device,
              std::string(call) + " failed: " + describe(result) + " (" + file + ":" +
                  std::to_string(line) + ")");
}

}  // namespace kk3::device
