#pragma once
// How one kernel call is launched, as plain data: what the kernels' *_launch.h headers compute
// from a variant's knobs, its mode and the token count. kk3tune launches with it (the families'
// geometry() in src/families) and the generated dispatch headers hand it to downstream builds
// (settings(), launch()), so both launch a variant with the same arithmetic.
//
// Dependency-free C++17: compiles under g++ alone (no CUDA headers), nvcc and NVRTC.

namespace kk3tune {
namespace kernels {

/// Dynamic shared memory a kernel may use without opting in to more (the runtime's
/// cudaFuncAttributeMaxDynamicSharedMemorySize, the driver's
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), bytes.
inline constexpr unsigned k_default_dynamic_shared_bytes = 48 * 1024;
/// CTAs a thread-block cluster may have without the non-portable cluster size attribute.
inline constexpr unsigned k_portable_cluster_ctas = 8;

/// A grid, block or cluster size.
struct launch_extent {
  unsigned x, y, z;
};

/// The settings of one launch. All zero: no launch (a mode the function does not know).
struct launch_settings {
  launch_extent grid;     ///< blocks
  launch_extent block;    ///< threads per block
  launch_extent cluster;  ///< CTAs per thread-block cluster; {1, 1, 1}: no cluster
  unsigned shared_bytes;  ///< dynamic shared memory per block, bytes
  /// Launch with programmatic stream serialization (PDL): the kernel may start while the
  /// previous kernel on the stream still runs, and reads that kernel's outputs only after its
  /// griddepcontrol.wait. True for the families kk3tune tunes: they are served, and timed, so.
  bool pdl;
};

}  // namespace kernels
}  // namespace kk3tune
