#pragma once
// Theoretical occupancy without a GPU: how many CTAs of a kernel fit on one SM of a named target
// GPU, from the kernel's registers and shared memory and its launch's threads and dynamic shared
// memory. The arithmetic is the CUDA occupancy calculator's (the toolkit's cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor, with the default shared-memory carveout): the smallest
// of the limits by warps, registers, shared memory and CTAs per SM. Pure functions.
#include <optional>
#include <string>

namespace kk3::device {

/// What bounds the CTAs of one SM on a target GPU: the per-SM limits of its compute capability
/// (the CUDA C++ Programming Guide's "Technical Specifications per Compute Capability", as CCCL's
/// cuda::arch_traits and cuda_occupancy.h hold them) and its SM count.
struct sm_target {
  std::string name;           ///< the GPU, e.g. "H200"
  std::string arch;           ///< the arch it runs, e.g. "sm_90a"
  int sm_count = 0;           ///< SMs on the GPU
  int max_warps_per_sm = 64;  ///< resident warps per SM (2048 threads)
  int max_ctas_per_sm = 32;   ///< resident CTAs per SM
  int max_threads_per_cta = 1024;
  int registers_per_sm = 65536;  ///< 32-bit registers per SM (and per CTA at most)
  int register_unit = 256;       ///< registers are allocated per warp in units of this many
  int max_registers_per_thread = 255;
  int sub_partitions = 4;                ///< an SM's register file is split among its 4 schedulers
  long long shared_per_sm = 228 * 1024;  ///< shared memory per SM, bytes (default carveout)
  long long max_shared_per_cta = 227 * 1024;  ///< static + dynamic per CTA with the opt-in, bytes
  long long reserved_shared_per_cta = 1024;   ///< the system's shared memory per CTA, bytes
  long long shared_unit = 128;                ///< shared memory is allocated in these units
};

/// The target kk3tune names for `arch` ("sm_90a" -> H200, "sm_100a" -> B200; the arch without
/// its suffix too), or none.
[[nodiscard]] std::optional<sm_target> target_for_arch(const std::string& arch);

/// A compiled kernel and its launch, as occupancy needs them.
struct kernel_footprint {
  int registers = 0;             ///< per thread
  long long static_shared = 0;   ///< bytes per CTA, the kernel's own (no system reserve)
  long long dynamic_shared = 0;  ///< bytes per CTA, the launch's
  int threads_per_cta = 0;
};

/// The theoretical occupancy of a kernel footprint on one SM.
struct occupancy {
  int ctas_per_sm = 0;   ///< resident CTAs per SM (0: it cannot run there at all)
  int warps_per_sm = 0;  ///< resident warps per SM
  double fraction = 0;   ///< warps_per_sm over the SM's maximum, 0 to 1
  /// What bounds ctas_per_sm: "warps", "registers", "shared memory" or "CTAs", the tied ones
  /// joined by "+" in that order (cuda_occupancy.h's order); when it cannot run, why.
  std::string limiter;
  int by_warps = 0, by_registers = 0, by_shared = 0, by_ctas = 0;  ///< each limit, CTAs per SM
};

/// The occupancy of `k` on one SM of `t` (threads_per_cta > 0).
[[nodiscard]] occupancy theoretical_occupancy(const kernel_footprint& k, const sm_target& t);

}  // namespace kk3::device
