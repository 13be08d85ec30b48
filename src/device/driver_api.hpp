#pragma once
// The CUDA driver API, loaded at run time from libcuda.so.1.
//
// kk3tune links no libcuda: CI and the build machines have no NVIDIA driver, and a binary
// linked to libcuda.so.1 would not even start there. The driver library is dlopen'ed on first
// use and every entry point is resolved with cuGetProcAddress for the CUDA version of the
// headers we were built with, so each pointer has exactly the type its declaration in cuda.h
// has (cuMemAlloc is cuMemAlloc_v2, and so on).
#include <cuda.h>
#include <cudaProfiler.h>

#include <string>

namespace kk3::device {

// Every driver call kk3tune makes. Add a name here to make driver().name(...) available.
// clang-format off
#define KK3_DRIVER_FUNCTIONS(X)                                                                \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)    \
  X(cuDeviceGet) X(cuDeviceGetPCIBusId) X(cuDeviceGetName) X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                 \
  X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemGetInfo) X(cuModuleLoadData) X(cuModuleUnload) \
  X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuStreamCreate)         \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent) X(cuStreamBeginCapture)       \
  X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(cuGraphDestroy)      \
  X(cuGraphExecDestroy) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                    \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)       \
  X(cuMemcpyDtoH) X(cuMemcpyAsync) X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuLaunchKernelEx)  \
  X(cuProfilerStart) X(cuProfilerStop) X(cuMemHostAlloc) X(cuMemFreeHost)                      \
  X(cuMemHostGetDevicePointer) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                  \
  X(cuOccupancyMaxActiveClusters)
// clang-format on

/// Pointers to the driver's entry points, each typed as cuda.h declares it.
struct driver_api {
#define KK3_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  KK3_DRIVER_FUNCTIONS(KK3_DECLARE_DRIVER_FUNCTION)
#undef KK3_DECLARE_DRIVER_FUNCTION
  int driver_version = 0;  ///< cuDriverGetVersion, e.g. 13000
};

/// The loaded and initialised (cuInit) driver. Throws error(device) with the reason when
/// there is none: no libcuda.so.1 (no NVIDIA driver), a driver too old, or cuInit failing.
/// $KK3TUNE_LIBCUDA overrides the library path (tests use it to hide the driver).
[[nodiscard]] const driver_api& driver();

/// Whether a driver is usable, without throwing; `why` says why not.
[[nodiscard]] bool driver_available(std::string* why = nullptr);

}  // namespace kk3::device
