#pragma once
// kk3tune::kernels::launch(): one kernel call with the launch settings a generated dispatch
// header gives (settings()), through cudaLaunchKernelEx, so that a downstream build launches a
// variant as kk3tune verified and timed it: a thread-block cluster, dynamic shared memory above
// 48 KiB and programmatic dependent launch (PDL) set from the settings, not by hand.
//
// Host code of a CUDA translation unit (nvcc, the CUDA runtime); the dispatch headers include it
// only there (#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)). kk3tune itself launches the
// same settings through the driver API (src/device/launch.cpp).
#include <cuda_runtime.h>

#include "launch_settings.h"

namespace kk3tune {
namespace kernels {

/// Launches `kernel` with `s` on `stream`, its arguments `args` (converted to the kernel's
/// parameter types as cudaLaunchKernelEx does). Before the launch it raises the kernel's dynamic
/// shared memory limit when `s` asks for more than 48 KiB, and allows a non-portable cluster
/// size beyond 8 CTAs; the launch carries the cluster dimension when a cluster has more than
/// one CTA, and the PDL attribute when `s.pdl`. Returns the first error of these calls.
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), const launch_settings& s, cudaStream_t stream,
                   Args&&... args) {
  if (s.shared_bytes > k_default_dynamic_shared_bytes) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(s.shared_bytes));
    if (e != cudaSuccess) return e;
  }
  const unsigned cluster_ctas = s.cluster.x * s.cluster.y * s.cluster.z;
  if (cluster_ctas > k_portable_cluster_ctas) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (e != cudaSuccess) return e;
  }
  cudaLaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (cluster_ctas > 1) {
    attributes[count].id = cudaLaunchAttributeClusterDimension;
    attributes[count].val.clusterDim.x = s.cluster.x;
    attributes[count].val.clusterDim.y = s.cluster.y;
    attributes[count++].val.clusterDim.z = s.cluster.z;
  }
  if (s.pdl) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(s.grid.x, s.grid.y, s.grid.z);
  config.blockDim = dim3(s.block.x, s.block.y, s.block.z);
  config.dynamicSmemBytes = s.shared_bytes;
  config.stream = stream;
  config.attrs = count ? attributes : nullptr;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
}

}  // namespace kernels
}  // namespace kk3tune
