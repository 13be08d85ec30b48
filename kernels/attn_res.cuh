#pragma once
// attn_res: Block Attention Residuals (SPEC 1.2), one token per cluster of B CTAs.
//
// The numerics contract: every variant computes bit for bit the same result. The arithmetic is
// fixed independently of the knobs: H is cut into slices of 256 elements; a slice is always
// reduced by one warp, lane l summing its 8 contiguous elements in order, then a butterfly over
// the 32 lanes in a fixed order; the per-slice partials are summed over the slices in slice
// order. The softmax over the N <= 9 logits is exact (max, exp, sum in source order), computed
// alike by every thread. Knobs only change which warp takes which slice and how loads are
// issued. Compiled with -fmad=false, so every add and multiply rounds as written. With B > 1 a
// token's slices are spread over a thread-block cluster (slice k belongs to CTA k % B); every
// CTA reads all partials from its peers' shared memory (DSMEM) in slice order, so every CTA
// computes the same totals, the same softmax and the same norm.
//
// Everything after the loads is fp64 (the sources are exact in it): with fp32 weights and sums,
// elements where the weighted sum nearly cancels missed the float64 reference by up to 207 bf16
// ulps on the H200. fp64 costs a few percent of the memory time at most (about 6 flops per
// source and element). The prefix update p = bf16(prefix + delta) stays fp32, as specified.
//
// PDL: prefix and delta come from the kernel launched just before: read after
// griddepcontrol.wait. The block sums and the weights are older and read before it.
//
// Compile-time: H, NB (0..8), HAS_DELTA, HAS_OUT_NORM, and the knobs B, THREADS, EARLY_BLOCKS,
// KEEP, STAGE. With STAGE=1 (Hopper) a CTA first copies its slices of every source into shared
// memory with bulk asynchronous copies completing on mbarriers, then computes from there: few
// registers, many CTAs per SM. Both paths call the same arithmetic helpers in the same order.
#include "common/pdl.cuh"
#include "attn_res_params.h"

#ifndef H
#define H 7168
#endif
#ifndef NB
#define NB 4
#endif
#ifndef HAS_DELTA
#define HAS_DELTA 1
#endif
#ifndef HAS_OUT_NORM
#define HAS_OUT_NORM 1
#endif
#ifndef READ_PREFIX_EARLY
#define READ_PREFIX_EARLY 0  // test-only: read prefix and delta before the wait (a hazard)
#endif

namespace kk3_ar {

constexpr int k_slice = 256;             // elements per slice: 32 lanes x 8
constexpr int k_slices = H / k_slice;
constexpr int k_sources = NB + 1;
static_assert(H % k_slice == 0, "H must be a multiple of 256");

__device__ __forceinline__ float bf16_to_f32(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }

__device__ __forceinline__ unsigned short f32_to_bf16_rn(float f) {
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

__device__ __forceinline__ void unpack8(uint4 raw, float* v) {
  const unsigned w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[2 * i] = bf16_to_f32(static_cast<unsigned short>(w[i] & 0xffffu));
    v[2 * i + 1] = bf16_to_f32(static_cast<unsigned short>(w[i] >> 16));
  }
}

/// Rounds once, to nearest even (the float64 reference rounds the same way).
__device__ __forceinline__ unsigned short f64_to_bf16_rn(double d) {
  unsigned short r;
  asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r) : "d"(d));
  return r;
}

__device__ __forceinline__ uint4 pack8(const float* v) {
  unsigned w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) w[i] = f32_to_bf16_rn(v[2 * i]) | (static_cast<unsigned>(f32_to_bf16_rn(v[2 * i + 1])) << 16);
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ uint4 pack8(const double* v) {
  unsigned w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) w[i] = f64_to_bf16_rn(v[2 * i]) | (static_cast<unsigned>(f64_to_bf16_rn(v[2 * i + 1])) << 16);
  return make_uint4(w[0], w[1], w[2], w[3]);
}

/// The fixed butterfly: every lane ends with the same sum.
__device__ __forceinline__ double warp_sum(double x) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) x = __dadd_rn(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Every thread of every CTA of the cluster arrives; shared-memory writes before it are visible
/// to the peers after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/// Reads a double from the shared memory of CTA `rank` of the cluster, at the address `local`
/// has in this CTA's shared memory.
__device__ __forceinline__ double load_peer(const double* local, unsigned rank) {
  unsigned addr, remote;
  asm("{ .reg .u64 g; cvta.to.shared.u64 g, %1; cvt.u32.u64 %0, g; }" : "=r"(addr) : "l"(local));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  double v;
  asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(remote) : "memory");
  return v;
}

/// The sum over all slices, in slice order, of a per-slice partial held by the slice's CTA.
template <int B>
__device__ __forceinline__ double sum_slices(const double* partials) {
  double total = 0.0;
  for (int k = 0; k < k_slices; ++k) total = __dadd_rn(total, B == 1 ? partials[k] : load_peer(partials + k, k % B));
  return total;
}

/// Per-slice partials of one source: lane-sequential over the lane's 8 elements, then the
/// butterfly. Every lane gets the slice's sum of squares and dot product with Q.
__device__ __forceinline__ void slice_partials(const float* v, const float* q, double& ss, double& dot) {
  ss = 0.0;
  dot = 0.0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const double x = v[i];
    ss = __dadd_rn(ss, __dmul_rn(x, x));
    dot = __dadd_rn(dot, __dmul_rn(x, static_cast<double>(q[i])));
  }
  ss = warp_sum(ss);
  dot = warp_sum(dot);
}

/// The softmax weights w_n and their sum s from all slices' partials (read from the peers' shared
/// memory when B > 1), in slice order then source order.
template <int B>
__device__ __forceinline__ void softmax_weights(double (*partial)[k_slices], float eps, double* w, double& s) {
  double logit[k_sources];
  double top = -1.0e308;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) {
    const double ss = sum_slices<B>(partial[2 * n]);
    const double dot = sum_slices<B>(partial[2 * n + 1]);
    logit[n] = __ddiv_rn(dot, __dsqrt_rn(__dadd_rn(__ddiv_rn(ss, static_cast<double>(H)), static_cast<double>(eps))));
    top = fmax(top, logit[n]);
  }
  double z = 0.0;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) {
    w[n] = exp(__dsub_rn(logit[n], top));
    z = __dadd_rn(z, w[n]);
  }
  s = 0.0;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) {
    w[n] = __ddiv_rn(w[n], z);
    s = __dadd_rn(s, w[n]);
  }
}

/// One element of acc = sum_n w_n V_n, in source order; `source(n)` gives V_n of the element.
template <class F>
__device__ __forceinline__ double weighted_sum(const double* w, F source) {
  double a = 0.0;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) a = __dadd_rn(a, __dmul_rn(w[n], static_cast<double>(source(n))));
  return a;
}

/// rsqrt(sum acc^2 / H + out_eps * s^2) from all slices' partial sums of acc^2.
template <int B>
__device__ __forceinline__ double norm_scale(const double* acc_partial, double s, float out_eps) {
  const double total = sum_slices<B>(acc_partial);
  return __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(total, static_cast<double>(H)),
                                            __dmul_rn(static_cast<double>(out_eps), __dmul_rn(s, s)))));
}

/// The 8 outputs of a lane: acc * r * out_w with the norm, acc / s without.
__device__ __forceinline__ uint4 outputs(const double* acc, double r, double s, const unsigned short* out_w, int e) {
  double o[8];
#if HAS_OUT_NORM
  float ow[8];
  unpack8(*reinterpret_cast<const uint4*>(out_w + e), ow);
#pragma unroll
  for (int i = 0; i < 8; ++i) o[i] = __dmul_rn(__dmul_rn(acc[i], r), static_cast<double>(ow[i]));
  (void)s;
#else
  (void)r;
  (void)out_w;
  (void)e;
#pragma unroll
  for (int i = 0; i < 8; ++i) o[i] = __ddiv_rn(acc[i], s);
#endif
  return pack8(o);
}

__device__ __forceinline__ unsigned smem_address(const void* p) {
  unsigned a;
  asm("{ .reg .u64 g; cvta.to.shared.u64 g, %1; cvt.u32.u64 %0, g; }" : "=r"(a) : "l"(p));
  return a;
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
}

__device__ __forceinline__ void mbarrier_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar) {
  unsigned ready = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ready)
                 : "r"(smem_address(bar))
                 : "memory");
  } while (!ready);
}

/// Copies 512 bytes (one slice of one source) from global to shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_copy_slice(void* dst, const void* src, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
               ::"r"(smem_address(dst)), "l"(src), "r"(smem_address(bar))
               : "memory");
}

}  // namespace kk3_ar

/// B: CTAs per token (a cluster). THREADS: threads per CTA (warp w of CTA r takes the CTA's
/// slices m = w + j * warps, i.e. slices r + B * m). EARLY_BLOCKS: fetch the block sums (older
/// inputs) before griddepcontrol.wait. KEEP (STAGE=0): keep every source in registers for the
/// weighted sum (1) or read them again, from L2 (0). STAGE: stage the sources in shared memory
/// with bulk copies (1) or load them into registers (0).
template <int B, int THREADS, int EARLY_BLOCKS, int KEEP, int STAGE>
__global__ void __launch_bounds__(THREADS) attn_res(const kk3_attn_res_params p) {
  using namespace kk3_ar;
  constexpr int k_warps = THREADS / 32;
  constexpr int k_mine = (k_slices + B - 1) / B;                 // slices of the busiest CTA
  constexpr int k_per_warp = (k_mine + k_warps - 1) / k_warps;  // slices a warp holds
  constexpr int k_staged = k_sources + HAS_DELTA;                // staged tensors per slice
  __shared__ double partial[2 * k_sources][k_slices];  // per source: sum of squares, dot with Q
  __shared__ double acc_partial[k_slices];
  __shared__ unsigned long long bars[2];               // STAGE: block sums; prefix and delta
  extern __shared__ uint4 stage[];                     // STAGE: [m][k_staged][32 lanes]

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rank = B == 1 ? 0 : static_cast<int>(cluster_rank());
  const long long t = blockIdx.x / B;
  const unsigned short* blocks = reinterpret_cast<const unsigned short*>(p.blocks) + t * p.block_token_stride;
  unsigned short* prefix = reinterpret_cast<unsigned short*>(p.prefix) + t * H;
  const unsigned short* delta = reinterpret_cast<const unsigned short*>(p.delta) + t * H;
  const int mine = (k_slices - rank + B - 1) / B;  // slices of this CTA
  // The CTA-local index m of this warp's j-th slice, and its slice; k_slices when none.
  auto local_of = [&](int j) { return warp + j * k_warps; };
  auto slice_of = [&](int j) {
    const int k = rank + B * local_of(j);
    return k < k_slices ? k : k_slices;
  };
  // Where lane `lane` finds source n (n == NB: prefix, n == NB + 1: delta) of its j-th slice.
  auto staged = [&](int j, int n) -> uint4* { return stage + (local_of(j) * k_staged + n) * 32 + lane; };

  if (STAGE) {
    if (threadIdx.x == 0) {
      mbarrier_init(&bars[0]);
      mbarrier_init(&bars[1]);
    }
    __syncthreads();
    auto fetch = [&](bool olds) {  // one lane per slice issues that slice's copies
      if (threadIdx.x == 0) {
        mbarrier_expect(&bars[olds ? 0 : 1], static_cast<unsigned>(mine * (olds ? NB : 1 + HAS_DELTA) * 512));
      }
      for (int m = threadIdx.x; m < mine; m += THREADS) {
        const int k = rank + B * m;
        if (olds) {
          for (int n = 0; n < NB; ++n) {
            bulk_copy_slice(stage + (m * k_staged + n) * 32, blocks + n * p.block_stride + k * k_slice, &bars[0]);
          }
        } else {
          bulk_copy_slice(stage + (m * k_staged + NB) * 32, prefix + k * k_slice, &bars[1]);
#if HAS_DELTA
          bulk_copy_slice(stage + (m * k_staged + NB + 1) * 32, delta + k * k_slice, &bars[1]);
#endif
        }
      }
    };
    if (NB > 0 && EARLY_BLOCKS) fetch(true);
    kk3_pdl_wait();
    if (NB > 0 && !EARLY_BLOCKS) fetch(true);
    fetch(false);
    if (NB > 0) mbarrier_wait(&bars[0]);
    mbarrier_wait(&bars[1]);
  }

  float v[STAGE ? 1 : k_per_warp][STAGE ? 1 : k_sources][8];  // registers path: the sources
  float q[k_per_warp][8];                                       // Q = rms_w * res_w in fp32
  auto source8 = [&](int j, int n, float* out8) {  // source n of slice j, in fp32
    if (STAGE) unpack8(*staged(j, n), out8);
    else {
#pragma unroll
      for (int i = 0; i < 8; ++i) out8[i] = v[STAGE ? 0 : j][STAGE ? 0 : n][i];
    }
  };

  // Older inputs first: the weights, and (registers path, EARLY_BLOCKS) the block sums.
#pragma unroll
  for (int j = 0; j < k_per_warp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    const int e = slice * k_slice + lane * 8;
    float a[8], b[8];
    unpack8(*reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.rms_w) + e), a);
    unpack8(*reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.res_w) + e), b);
#pragma unroll
    for (int i = 0; i < 8; ++i) q[j][i] = __fmul_rn(a[i], b[i]);
    if (!STAGE && EARLY_BLOCKS) {
#pragma unroll
      for (int n = 0; n < NB; ++n) unpack8(*reinterpret_cast<const uint4*>(blocks + n * p.block_stride + e), v[STAGE ? 0 : j][STAGE ? 0 : n]);
    }
  }
#if READ_PREFIX_EARLY
  if (!STAGE) {
#pragma unroll
    for (int j = 0; j < k_per_warp; ++j) {
      const int slice = slice_of(j);
      if (slice < k_slices) unpack8(*reinterpret_cast<const uint4*>(prefix + slice * k_slice + lane * 8), v[STAGE ? 0 : j][STAGE ? 0 : NB]);
    }
  }
#endif
  if (!STAGE) kk3_pdl_wait();

  // The newest source: p = bf16(prefix + delta), written back in place; then the partials.
#pragma unroll
  for (int j = 0; j < k_per_warp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    const int e = slice * k_slice + lane * 8;
    float pv[8];
    if (STAGE) {
      unpack8(*staged(j, NB), pv);
    } else {
      if (!EARLY_BLOCKS) {
#pragma unroll
        for (int n = 0; n < NB; ++n) unpack8(*reinterpret_cast<const uint4*>(blocks + n * p.block_stride + e), v[STAGE ? 0 : j][STAGE ? 0 : n]);
      }
#if !READ_PREFIX_EARLY
      unpack8(*reinterpret_cast<const uint4*>(prefix + e), pv);
#else
#pragma unroll
      for (int i = 0; i < 8; ++i) pv[i] = v[STAGE ? 0 : j][STAGE ? 0 : NB][i];
#endif
    }
#if HAS_DELTA
    float d[8];
    if (STAGE) unpack8(*staged(j, NB + 1), d);
    else unpack8(*reinterpret_cast<const uint4*>(delta + e), d);
#pragma unroll
    for (int i = 0; i < 8; ++i) pv[i] = bf16_to_f32(f32_to_bf16_rn(__fadd_rn(pv[i], d[i])));
    const uint4 packed = pack8(pv);
    *reinterpret_cast<uint4*>(prefix + e) = packed;
    if (STAGE) *staged(j, NB) = packed;  // the weighted sum reads p from here
#endif
    if (!STAGE) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[STAGE ? 0 : j][STAGE ? 0 : NB][i] = pv[i];
    }
#pragma unroll
    for (int n = 0; n < k_sources; ++n) {
      float x[8];
      source8(j, n, x);
      double ss, dot;
      slice_partials(x, q[j], ss, dot);
      if (lane == 0) {
        partial[2 * n][slice] = ss;
        partial[2 * n + 1][slice] = dot;
      }
    }
  }
  if (B == 1) __syncthreads();
  else cluster_sync();

  double w[k_sources], s;
  softmax_weights<B>(partial, p.eps, w, s);

  // acc = sum_n w_n V_n, in source order.
  double acc[k_per_warp][8];
#pragma unroll
  for (int j = 0; j < k_per_warp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    if (!STAGE && !KEEP) {
      const int e = slice * k_slice + lane * 8;
#pragma unroll
      for (int n = 0; n < NB; ++n) unpack8(*reinterpret_cast<const uint4*>(blocks + n * p.block_stride + e), v[STAGE ? 0 : j][STAGE ? 0 : n]);
      unpack8(*reinterpret_cast<const uint4*>(prefix + e), v[STAGE ? 0 : j][STAGE ? 0 : NB]);  // this thread's own p
    }
    float x[k_sources][8];
#pragma unroll
    for (int n = 0; n < k_sources; ++n) source8(j, n, x[n]);
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[j][i] = weighted_sum(w, [&](int n) { return x[n][i]; });
  }

  unsigned short* out = reinterpret_cast<unsigned short*>(p.out) + t * H;
  double r = 0.0;
#if HAS_OUT_NORM
#pragma unroll
  for (int j = 0; j < k_per_warp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    double ss = 0.0;
#pragma unroll
    for (int i = 0; i < 8; ++i) ss = __dadd_rn(ss, __dmul_rn(acc[j][i], acc[j][i]));
    ss = warp_sum(ss);
    if (lane == 0) acc_partial[slice] = ss;
  }
  if (B == 1) __syncthreads();
  else cluster_sync();
  r = norm_scale<B>(acc_partial, s, p.out_eps);
#endif
#pragma unroll
  for (int j = 0; j < k_per_warp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    const int e = slice * k_slice + lane * 8;
    *reinterpret_cast<uint4*>(out + e) = outputs(acc[j], r, s, reinterpret_cast<const unsigned short*>(p.out_w), e);
  }
  if (B > 1) cluster_sync();  // peers may still be reading this CTA's partials
  kk3_pdl_trigger();
}
