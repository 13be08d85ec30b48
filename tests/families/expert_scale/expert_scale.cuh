#pragma once
// expert_scale, a small test family (issue 15): y[t, e, :] = bf16(x[t, e, :] * scale[e]) over
// T tokens, E experts and D = 1024 elements per expert row. It is not a model kernel: it shows
// that a family with its own model dimension (experts, E) plugs in through its folder
// (tests/families/expert_scale: its host side, this kernel, its config) and one line of
// tests/families/list.def. Only test builds register it.
#include "common/pdl.cuh"

namespace kk3 {

constexpr int k_expert_row = 1024;  // D: elements of one expert row

__device__ __forceinline__ float es_bf16_to_f32(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }

// Round to nearest, ties to even; NaN to 0x7fff (the CPU reference's conversion).
__device__ __forceinline__ unsigned short es_f32_to_bf16_rn(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<unsigned short>(u >> 16);
}

/// One CTA per ROWS rows of (token, expert); each thread moves VEC elements per step.
template <int VEC, int THREADS, int ROWS>
__global__ void __launch_bounds__(THREADS)
    expert_scale_kernel(const unsigned short* __restrict__ x, const float* __restrict__ scale,
                        unsigned short* __restrict__ y, int tokens, int experts) {
  static_assert(k_expert_row % VEC == 0, "VEC divides the row");
  kk3_pdl_wait();  // x comes from the previous kernel
  const long long rows = static_cast<long long>(tokens) * experts;
  for (int r = 0; r < ROWS; ++r) {
    const long long row = static_cast<long long>(blockIdx.x) * ROWS + r;
    if (row >= rows) break;
    const float s = scale[row % experts];
    const unsigned short* in = x + row * k_expert_row;
    unsigned short* out = y + row * k_expert_row;
    for (int i = threadIdx.x * VEC; i < k_expert_row; i += THREADS * VEC) {
      unsigned short v[VEC];
#pragma unroll
      for (int k = 0; k < VEC; ++k) v[k] = in[i + k];
#pragma unroll
      for (int k = 0; k < VEC; ++k) out[i + k] = es_f32_to_bf16_rn(es_bf16_to_f32(v[k]) * s);
    }
  }
  kk3_pdl_trigger();
}

}  // namespace kk3
