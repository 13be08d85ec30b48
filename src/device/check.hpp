#pragma once
// The check macro for CUDA driver calls: KK3_CU(cuMemAlloc, &ptr, bytes) calls
// driver().cuMemAlloc(&ptr, bytes) and throws error(device) with the call's text, the
// driver's error name and message, and the file and line.
#include "device/driver_api.hpp"

namespace kk3::device {

/// Throws when `result` is not CUDA_SUCCESS: error(launch) for the faults a kernel causes
/// (illegal address, trap, ...), which poison the context, error(device) for the rest.
void check_cu(CUresult result, const char* call, const char* file, int line);
/// The driver's name and text for a result, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal ...".
std::string describe(CUresult result);

}  // namespace kk3::device

#define KK3_CU(fn, ...)                                                                      \
  ::kk3::device::check_cu(::kk3::device::driver().fn(__VA_ARGS__), #fn "(" #__VA_ARGS__ ")", \
                          __FILE__, __LINE__)
