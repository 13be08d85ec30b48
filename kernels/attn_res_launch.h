#pragma once
// The launch settings of kernels/attn_res.cuh: what kk3tune launches each variant with
// (src/families/attn_res, geometry()) and what the generated dispatch header's settings() gives
// a downstream build. Dependency-free C++17 (g++ alone, nvcc, NVRTC).
#include "common/launch_settings.h"

namespace kk3tune {
namespace kernels {

/// The knobs of attn_res that shape its launch (the others change only the code).
struct attn_res_launch_knobs {
  int b;       ///< B: CTAs per token, one thread-block cluster when > 1
  int gpw;     ///< GPW: slices of 256 elements per warp
  int stage;   ///< STAGE: 1 stages the rows in shared memory
  int tpc;     ///< TPC: tokens per cluster
  int stages;  ///< STAGES: tokens staged at once (STAGE = 1)
};

/// The compile-time dimensions of the mode (its macros).
struct attn_res_launch_mode {
  long long hidden;  ///< H: elements per row, a multiple of 256
  long long nb;      ///< NB: completed block sums (0..8); N = NB + 1 sources
  bool delta;        ///< HAS_DELTA: delta is an input (and staged with the sources)
  bool out_norm;     ///< HAS_OUT_NORM: the output is RMS-normalised
};

/// The launch of a variant over `tokens` tokens. The kernel's own arithmetic: CTA r of a
/// cluster of B takes slices [r K / B, (r + 1) K / B) of the K = H / 256, so the busiest takes
/// ceil(K / B); a warp takes GPW of them; a cluster works through TPC tokens.
constexpr launch_settings attn_res_launch(const attn_res_launch_knobs& k,
                                          const attn_res_launch_mode& m,
                                          long long tokens) noexcept {
  const long long slices = m.hidden / 256, mine = (slices + k.b - 1) / k.b;
  const long long warps = (mine + k.gpw - 1) / k.gpw;
  long long bytes = 0;
  if (k.stage) {  // per stage: every staged row (the sources, delta) of the busiest CTA's slices
    const long long rows = m.nb + 1 + (m.delta ? 1 : 0);
    bytes += k.stages * rows * mine * 512;
  }
  // Per warp, one scratch for two phases: the lane rows of the column sums (with 2N >= 8 unit
  // sums per slice: 32 lanes x 2 (N | 1) doubles) and the fp32 mix of its GPW slices.
  const long long rows = 2 * (m.nb + 1) >= 8 ? 32 * 2 * ((m.nb + 1) | 1) * 8 : 0;
  const long long mix = m.out_norm ? k.gpw * 1024 : 0;
  bytes += warps * (rows > mix ? rows : mix);
  const long long clusters = (tokens + k.tpc - 1) / k.tpc;
  return {{static_cast<unsigned>(clusters * k.b), 1, 1},
          {static_cast<unsigned>(32 * warps), 1, 1},
          {static_cast<unsigned>(k.b), 1, 1},
          static_cast<unsigned>(bytes),
          true};  // prefix and delta are read after griddepcontrol.wait
}

}  // namespace kernels
}  // namespace kk3tune
