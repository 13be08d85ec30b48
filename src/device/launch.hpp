#pragma once
// Kernel launches through cuLaunchKernelEx, with programmatic dependent launch when asked.
#include "device/driver_api.hpp"

namespace kk3::device {

/// A grid or block size.
struct extent3 {
  unsigned x = 1, y = 1, z = 1;
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

/// Launches `fn` on `s`; throws error(device) or error(launch) with the call's text.
void launch(CUfunction fn, CUstream s, const launch_config& config, void** args);

}  // namespace kk3::device
