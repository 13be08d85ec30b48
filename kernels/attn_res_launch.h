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
  int nc;      ///< NC: sources per chunk (0: all)
  int stage;   ///< STAGE: 1 streams the rows through a ring of shared-memory rows (2: two passes)
  int stages;  ///< STAGES: chunks the ring holds (STAGE = 1)
  int tpc;     ///< TPC: tokens per cluster
};

/// The compile-time dimensions of the mode (its macros).
struct attn_res_launch_mode {
  long long hidden;  ///< H: elements per row, a multiple of 256
  long long nb;      ///< NB: completed block sums (0..15); N = NB + 1 sources
  bool delta;        ///< HAS_DELTA: delta is an input (a row of the ring)
  bool out_norm;     ///< HAS_OUT_NORM: the output is RMS-normalised
};

/// The launch of a variant over `tokens` tokens. The kernel's own arithmetic: CTA r of a
/// cluster of B takes slices [r K / B, (r + 1) K / B) of the K = H / 256, so the busiest takes
/// ceil(K / B); a warp takes GPW of them; a cluster takes TPC tokens. STAGE = 2 has no dynamic shared memory (its
/// partial sums are static) and TPC = 1. With STAGE = 1 the dynamic
/// shared memory is the ring: its rows (STAGES chunks of NC sources, and delta's row; all the
/// token's rows when NC = 0 or when they are fewer) of the busiest CTA's slices.
constexpr launch_settings attn_res_launch(const attn_res_launch_knobs& k,
                                          const attn_res_launch_mode& m,
                                          long long tokens) noexcept {
  const long long slices = m.hidden / 256, mine = (slices + k.b - 1) / k.b;
  const long long warps = (mine + k.gpw - 1) / k.gpw;
  long long bytes = 0;
  if (k.stage == 1) {
    const long long sources = m.nb + 1, rows = sources + (m.delta ? 1 : 0);
    const long long nc = k.nc == 0 || k.nc > sources ? sources : k.nc;
    const long long ring = k.stages * nc + (m.delta ? 1 : 0);
    bytes = (k.nc == 0 || ring > rows ? rows : ring) * mine * 512;
  }
  const long long clusters = (tokens + k.tpc - 1) / k.tpc;
  return {{static_cast<unsigned>(clusters * k.b), 1, 1},
          {static_cast<unsigned>(32 * warps), 1, 1},
          {static_cast<unsigned>(k.b), 1, 1},
          static_cast<unsigned>(bytes),
          true};  // prefix and delta are read after griddepcontrol.wait
}

}  // namespace kernels
}  // namespace kk3tune
