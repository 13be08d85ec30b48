#pragma once
// The foundation's example kernel: a plain device-to-device copy with a few knobs. It is not
// a kernel family (it does not appear in `kk3tune list`); it exercises JIT, cache, device
// layer and, later, the measurement engine on a kernel whose ideal time is known.
#include "common/pdl.cuh"

namespace kk3 {

template <int VEC_BYTES> struct copy_vector;
template <> struct copy_vector<4> { using type = unsigned int; };
template <> struct copy_vector<8> { using type = uint2; };
template <> struct copy_vector<16> { using type = uint4; };

/// Copies `bytes` (a multiple of 16) from src to dst. Each thread moves UNROLL vectors of
/// VEC_BYTES per step, THREADS apart, over a grid-stride loop.
template <int VEC_BYTES, int UNROLL, int THREADS>
__global__ void __launch_bounds__(THREADS)
    copy_kernel(const void* __restrict__ src, void* __restrict__ dst, unsigned long long bytes) {
  using vec = typename copy_vector<VEC_BYTES>::type;
  const vec* __restrict__ in = static_cast<const vec*>(src);
  vec* __restrict__ out = static_cast<vec*>(dst);
  const unsigned long long n = bytes / VEC_BYTES;
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * THREADS * UNROLL;

  kk3_pdl_wait();  // src may come from the previous kernel
  for (unsigned long long base = static_cast<unsigned long long>(blockIdx.x) * THREADS * UNROLL + threadIdx.x;
       base < n; base += step) {
    vec v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const unsigned long long i = base + static_cast<unsigned long long>(u) * THREADS;
      if (i < n) v[u] = in[i];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const unsigned long long i = base + static_cast<unsigned long long>(u) * THREADS;
      if (i < n) out[i] = v[u];
    }
  }
  kk3_pdl_trigger();
}

}  // namespace kk3
