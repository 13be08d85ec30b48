#pragma once
// Kernel launches through cuLaunchKernelEx, with programmatic dependent launch when asked.
#include <array>

#include "common/launch_settings.h"
#include "device/driver_api.hpp"

namespace kk3::device {

/// A grid or block size.
struct extent3 {
  unsigned x = 1, y = 1, z = 1;
  /// x * y * z: threads per block, blocks per grid, CTAs per cluster.
  unsigned volume() const { return x * y * z; }
};

/// How a kernel is launched.
struct launch_config {
  extent3 grid;               ///< blocks
  extent3 block;              ///< threads per block
  unsigned shared_bytes = 0;  ///< dynamic shared memory per block
  extent3 cluster;            ///< thread-block cluster (1x1x1: none); more than 8 CTAs is
                              ///< allowed through the non-portable cluster size attribute
  bool pdl = false;           ///< CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the
                              ///< kernel may start before the previous one on the stream ends,
                              ///< and must wait (griddepcontrol.wait) before reading its output
};

/// Dynamic shared memory a function may use without opting in to more.
inline constexpr unsigned k_default_dynamic_shared_bytes =
    kk3tune::kernels::k_default_dynamic_shared_bytes;
/// CTAs a cluster may have only with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED.
inline constexpr unsigned k_portable_cluster_ctas = kk3tune::kernels::k_portable_cluster_ctas;

/// Sets the function attributes a launch with `config` needs: the dynamic shared memory limit
/// when it asks for more than 48 KiB, the non-portable cluster size beyond 8 CTAs. Throws
/// error(device) when the driver refuses.
void opt_in(CUfunction fn, const launch_config& config);

/// The driver's form of `config` on stream `s`. It points into `attributes`, which must
/// outlive it.
CUlaunchConfig driver_config(const launch_config& config, CUstream s,
                             std::array<CUlaunchAttribute, 2>& attributes);

/// Launches `fn` on `s`; throws error(device) or error(launch) with the call's text.
void launch(CUfunction fn, CUstream s, const launch_config& config, void** args);

}  // namespace kk3::device
