#pragma once
// The launch settings of kernels/mla_decode_epilogue.cuh: what kk3tune launches each variant
// with (src/families/mla_decode_epilogue, geometry()) and what the generated dispatch header's
// settings() gives a downstream build. Dependency-free C++17 (g++ alone, nvcc, NVRTC).
#include "common/launch_settings.h"

namespace kk3tune {
namespace kernels {

/// The knobs of mla_decode_epilogue that shape its launch (the others change only the code).
struct mla_decode_epilogue_launch_knobs {
  int split;          ///< SPLIT: warps per 576-element row
  int rows_per_warp;  ///< ROWS_PER_WARP: rows a warp group works through
  int threads;        ///< THREADS: threads per block, a multiple of 32
};

/// The launch of a variant over `tokens` tokens of `heads` heads: T cache rows and T * H q
/// rows, each handled by SPLIT warps, ROWS_PER_WARP rows per warp group. No shared memory, no
/// cluster.
constexpr launch_settings mla_decode_epilogue_launch(const mla_decode_epilogue_launch_knobs& k,
                                                     long long heads, long long tokens) noexcept {
  const long long rows = tokens * (heads + 1);
  const long long warps = (rows + k.rows_per_warp - 1) / k.rows_per_warp * k.split;
  const long long warps_per_block = k.threads / 32;
  return {{static_cast<unsigned>((warps + warps_per_block - 1) / warps_per_block), 1, 1},
          {static_cast<unsigned>(k.threads), 1, 1},
          {1, 1, 1},
          0,
          true};  // ql_nope and q_pe are read after griddepcontrol.wait
}

}  // namespace kernels
}  // namespace kk3tune
