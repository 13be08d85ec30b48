#pragma once
// attn_res: Block Attention Residuals (SPEC 1.2), one token per cluster of B CTAs.
//
// The numerics contract: every variant computes bit for bit the same result. The arithmetic is
// fixed independently of the knobs:
// - H is cut into slices of 256 elements. A slice is always reduced by one warp: lane l sums its
//   8 contiguous elements in order, then a fixed tree over the 32 lanes (transpose_sum).
// - A total over slices is always the same tree: lane l of one warp adds the partials of slices
//   l, l + 32, l + 64, ... in that order, then the butterfly.
// - The softmax over the N <= 9 logits is exact: max, exp, then sums in source order.
// Knobs only change which warp of which CTA takes a slice, and how and when loads are issued.
// Compiled with -fmad=false; the fused multiply-adds below are written out (__fma_rn), so every
// rounding is the same in every variant. With B > 1 a token's slices are spread over a
// thread-block cluster (slice k belongs to CTA k % B); every CTA computes every total from its
// peers' partials (distributed shared memory), so all CTAs agree on the softmax and the norm.
//
// Everything after the loads is fp64: with fp32 weights and sums, elements where the weighted
// sum nearly cancels missed the float64 reference by up to 207 bf16 ulps on the H200. Every bf16
// becomes a double exactly, by one conversion instruction (cvt.f64.bf16), or by integer
// operations alone as the double times 2^-896, with the 2^896 carried by the weight it is
// multiplied with (knob CVT, for the weighted sum; the product is the same either way). Squares and products with Q (bf16 x fp32) are exact in a
// double, so each element of each source costs two conversions and three fused multiply-adds.
// The cross-lane sums of a slice's 2N partials share their shuffles (transpose_sum). Inputs are
// assumed finite.
// The prefix update p = bf16(prefix + delta) is fp32, as specified.
//
// PDL: prefix and delta come from the kernel launched just before: read after
// griddepcontrol.wait. The block sums and the weights are older and may be read before it.
//
// Compile-time: H, NB (0..8), HAS_DELTA, HAS_OUT_NORM, and the knobs B, THREADS, EARLY_BLOCKS,
// KEEP, STAGE, OCC, TPC, CVT, NC, SPREAD, RED. With STAGE=1 (Hopper) a CTA first copies its slices of every source into shared
// memory with bulk asynchronous copies completing on mbarriers, then computes from there: few
// registers, many CTAs per SM. Every path calls the same arithmetic helpers in the same order.
#include "common/fault_injection.cuh"
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
constexpr int k_sources = NB + 1;        // the block sums, then p (the updated prefix)
constexpr int k_totals = 2 * k_sources;  // per source: sum of squares, dot with Q
static_assert(H % k_slice == 0, "H must be a multiple of 256");
static_assert(k_totals <= 32, "transpose_sum gives each total its own lane");

__device__ __forceinline__ float bf16_to_f32(unsigned b) { return __uint_as_float((b & 0xffffu) << 16); }

__device__ __forceinline__ unsigned short f32_to_bf16_rn(float f) {
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

/// Rounds once, to nearest even (the float64 reference rounds the same way).
__device__ __forceinline__ unsigned short f64_to_bf16_rn(double d) {
  unsigned short r;
  asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r) : "d"(d));
  return r;
}

/// 2^896: a bf16's sign, exponent and mantissa bits placed in a double's high word give the
/// bf16's value times 2^-896, exactly, for every finite value (subnormals too).
constexpr double k_unscale = 0x1p896;

/// Element i (0..7) of 8 packed bf16 values, as a double scaled by 2^-896 (integer operations
/// only). A product of it with y * 2^896 is exactly the element times y.
__device__ __forceinline__ double scaled_element(const uint4& raw, int i) {
  const unsigned w = i < 2 ? raw.x : i < 4 ? raw.y : i < 6 ? raw.z : raw.w;
  // The element in the top half of a word; shifted right arithmetically by 3, its sign lands in
  // bits 31..28 (30..28 cleared by the mask), exponent and mantissa in 27..13.
  const int top = static_cast<int>(i & 1 ? w : w << 16);
  return __hiloint2double(static_cast<int>(static_cast<unsigned>(top >> 3) & 0x8fffe000u), 0);
}

/// Element i (0..7) of 8 packed bf16 values, as a double, exactly: one conversion instruction
/// (F2F.F64.BF16, reading either half of the register; a quarter of the fp64 rate on Hopper).
__device__ __forceinline__ double element(const uint4& raw, int i) {
  const unsigned w = i < 2 ? raw.x : i < 4 ? raw.y : i < 6 ? raw.z : raw.w;
  double d;
  if (i & 1) asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f64.bf16 %0, hi; }" : "=d"(d) : "r"(w));
  else asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f64.bf16 %0, lo; }" : "=d"(d) : "r"(w));
  return d;
}

__device__ __forceinline__ unsigned pack2(unsigned short lo, unsigned short hi) { return lo | (static_cast<unsigned>(hi) << 16); }

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
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Reads a double from the shared memory of CTA `rank` of the cluster, at the address `local`
/// has in this CTA's shared memory.
__device__ __forceinline__ double load_peer(const double* local, unsigned rank) {
  unsigned remote;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local)), "r"(rank));
  double v;
  asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(remote) : "memory");
  return v;
}

/// The total over all slices of a per-slice partial held by the slice's CTA (k % B), by one
/// warp, in the fixed tree: lane l adds slices l, l + 32, ... in order, then the butterfly.
template <int B>
__device__ __forceinline__ double total_over_slices(const double* partials, int lane) {
  double sum = 0.0;
#pragma unroll
  for (int k = lane; k < k_slices; k += 32) sum = __dadd_rn(sum, B == 1 ? partials[k] : load_peer(partials + k, k % B));
  return warp_sum(sum);
}

/// Sums Count values across the 32 lanes of a warp, every one in the same fixed tree, with
/// Count - 1 + 5 shuffles rather than 5 * Count: at each step (offset 16, 8, ..., 1) a lane keeps
/// the lower or upper half of its values (by the offset's lane bit) and adds its partner's copy
/// of that half. In the end each lane holds the total of at most one value: `index` says which
/// (-1 for none). The tree depends on Count only, never on a knob.
template <int Count, int Offset = 16>
__device__ __forceinline__ void transpose_sum(double* v, int lane, int& index, int have = Count, int base = 0) {
  constexpr int half = (Count + 1) / 2;
  const bool upper = lane & Offset;
#pragma unroll
  for (int j = 0; j < half; ++j) {
    const double lo = v[j], hi = j + half < Count ? v[j + half] : 0.0;
    v[j] = __dadd_rn(upper ? hi : lo, __shfl_xor_sync(0xffffffffu, upper ? lo : hi, Offset));
  }
  if (upper) {
    base += half;
    have = have > half ? have - half : 0;
  } else {
    have = have < half ? have : half;
  }
  if constexpr (Offset > 1) {
    transpose_sum<half, Offset / 2>(v, lane, index, have, base);
  } else {
    index = have == 1 ? base : -1;
  }
}

/// One source's lane partials: the sum of the squares and of the products with Q over the lane's
/// 8 elements, in order.
__device__ __forceinline__ void lane_partials(const uint4& raw, const double* q, double& ss, double& dot) {
  ss = 0.0;
  dot = 0.0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const double x = element(raw, i);
    ss = __fma_rn(x, x, ss);
    dot = __fma_rn(x, q[i], dot);
  }
}

/// The sum of 32 lane values column[l * stride] (l = 0..31) in the butterfly's tree (pairs l and
/// l + 16 first, then l and l + 8 of those, ...), so it equals warp_sum and transpose_sum bit for
/// bit, computed by one lane from shared memory.
__device__ __forceinline__ double tree_of_32(const double* column, int stride) {
  double a[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) a[i] = __dadd_rn(column[i * stride], column[(i + 16) * stride]);
#pragma unroll
  for (int i = 0; i < 8; ++i) a[i] = __dadd_rn(a[i], a[i + 8]);
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = __dadd_rn(a[i], a[i + 4]);
  return __dadd_rn(__dadd_rn(a[0], a[2]), __dadd_rn(a[1], a[3]));
}

/// A slice's partials of `Count` sources (raw[0..Count)): lane-sequential sums over the lane's 8
/// elements of the squares and of the products with Q, then the fixed cross-lane tree. Lane
/// `index` >= 0 holds partial `index` (2c: source c's sum of squares, 2c + 1: its dot product with
/// Q) in v[0]. Every partial gets the same tree whatever Count is (the pairs are always lanes l
/// and l ^ 16, then l ^ 8, ...), so the number of sources per chunk is free to choose.
template <int Count>
__device__ __forceinline__ void slice_partials(const uint4* raw, const double* q, double* v, int lane, int& index) {
#pragma unroll
  for (int c = 0; c < Count; ++c) lane_partials(raw[c], q, v[2 * c], v[2 * c + 1]);
  transpose_sum<2 * Count>(v, lane, index);
}

/// The lane that transpose_sum<Count> leaves holding value q (the inverse of its `index`).
template <int Count, int Offset = 16>
__device__ __forceinline__ int holder_lane(int q) {
  constexpr int half = (Count + 1) / 2;
  const int bit = q >= half ? Offset : 0;
  if constexpr (Offset > 1) {
    return bit + holder_lane<half, Offset / 2>(q >= half ? q - half : q);
  } else {
    return bit;
  }
}

/// The softmax over the N logits, by one warp: lane n (< N) holds source n's total sum of squares
/// and dot product with Q, computes logit n, and gets its weight w_n (0 in lanes >= N); every
/// lane gets s, the sum of the weights. Max (exact in any order), exp, then sums in source order.
__device__ __forceinline__ double softmax_lane(double ss, double dot, float eps, int lane, double& s) {
  double logit = -1.0e308;
  if (lane < k_sources) {
    const double ms = __dadd_rn(__ddiv_rn(ss, static_cast<double>(H)), static_cast<double>(eps));
    logit = __ddiv_rn(dot, __dsqrt_rn(ms));
  }
  double top = logit;
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) top = fmax(top, __shfl_xor_sync(0xffffffffu, top, offset));
  const double e = lane < k_sources ? exp(__dsub_rn(logit, top)) : 0.0;
  double z = 0.0;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) z = __dadd_rn(z, __shfl_sync(0xffffffffu, e, n));
  const double w = __ddiv_rn(e, z);
  s = 0.0;
#pragma unroll
  for (int n = 0; n < k_sources; ++n) s = __dadd_rn(s, __shfl_sync(0xffffffffu, w, n));
  return w;
}

/// The output scale from the total of acc^2 and s: rsqrt(total / H + out_eps * s^2), as a
/// correctly rounded square root and division.
__device__ __forceinline__ double norm_scale(double total, double s, float out_eps) {
  return __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(total, static_cast<double>(H)),
                                            __dmul_rn(static_cast<double>(out_eps), __dmul_rn(s, s)))));
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
}

__device__ __forceinline__ void mbarrier_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes) : "memory");
}

/// Waits until the phase of `bar` with the given parity (0 for its first use, then 1, 0, ...)
/// has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned ready = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ready)
                 : "r"(smem_address(bar)), "r"(parity)
                 : "memory");
  } while (!ready);
}

/// Copies 512 bytes (one slice of one source) from global to shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_copy_slice(void* dst, const void* src, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
               ::"r"(smem_address(dst)), "l"(src), "r"(smem_address(bar))
               : "memory");
}

/// body(j, slice, e) for a warp's slices in order: the j-th (j < PerWarp), its index in H / 256
/// (slice_of(j), k_slices when the warp has no j-th slice), and where lane `lane`'s 8 elements
/// of it start.
template <int PerWarp, class SliceOf, class Body>
__device__ __forceinline__ void for_my_slices(const SliceOf& slice_of, int lane, const Body& body) {
#pragma unroll
  for (int j = 0; j < PerWarp; ++j) {
    const int slice = slice_of(j);
    if (slice >= k_slices) break;
    body(j, slice, slice * k_slice + lane * 8);
  }
}

/// 8 bf16 from global memory that no kernel writes while this one runs.
__device__ __forceinline__ uint4 load_old(const unsigned short* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
/// 8 bf16 from global memory written by the previous kernel or by this thread.
__device__ __forceinline__ uint4 load_new(const unsigned short* p) { return *reinterpret_cast<const uint4*>(p); }

}  // namespace kk3_ar

/// B: CTAs per token (a cluster). THREADS: threads per CTA (warp w of CTA r takes the CTA's
/// slices m = w + j * warps, i.e. slices r + B * m). EARLY_BLOCKS: fetch the block sums (older
/// inputs) before griddepcontrol.wait. KEEP (STAGE=0): keep every source in registers for the
/// weighted sum (1) or read them again, from L2 (0). STAGE: stage the sources in shared memory
/// with bulk copies (1) or load them into registers (0). OCC: ask the compiler for at most 64
/// registers per thread, so 1024 threads fit on an SM (1), or leave it free (0). TPC (STAGE=1):
/// tokens per cluster; with TPC > 1 a cluster keeps Q in registers and works through TPC tokens
/// with two shared-memory stages, the bulk copies of token i + 1 in flight while it computes
/// token i. CVT: how the weighted sum turns bf16 into doubles: integer operations (0) or the
/// conversion instruction (1), which takes fewer issue slots but runs at a quarter rate. NC:
/// sources per chunk of the logits pass (loads in flight and registers held at once). SPREAD:
/// every warp derives the totals, the softmax and the norm itself (1), with no block barrier
/// between them (shorter for a few tokens, more instructions), or one warp each, handed over
/// in shared memory (0). RED (registers path): a slice's lane partials summed across the lanes
/// by shuffles (0, transpose_sum) or through shared memory, one lane per partial (1; the same
/// tree, fewer instructions, k_totals x 32 doubles of dynamic shared memory per warp).
template <int B, int THREADS, int EARLY_BLOCKS, int KEEP, int STAGE, int OCC, int TPC, int CVT, int NC, int SPREAD, int RED>
__global__ void __launch_bounds__(THREADS, OCC ? 1024 / THREADS : 1) attn_res(const kk3_attn_res_params p) {
  using namespace kk3_ar;
  KK3_FAULT_POINT();  // empty unless a test injects a fault (common/fault_injection.cuh)
  static_assert(TPC == 1 || STAGE, "several tokens per cluster need the staged path");
  static_assert(!RED || !STAGE, "RED=1 uses the dynamic shared memory the staged path stages into");
  constexpr int k_warps = THREADS / 32;
  constexpr int k_mine = (k_slices + B - 1) / B;                 // slices of the busiest CTA
  constexpr int k_per_warp = (k_mine + k_warps - 1) / k_warps;  // slices a warp holds
  constexpr int k_staged = k_sources + HAS_DELTA;                // staged tensors per slice
  constexpr int k_stages = TPC > 1 ? 2 : 1;
  constexpr int k_chunk = NC < k_sources ? NC : k_sources;  // sources per chunk
  constexpr bool k_hold = !STAGE && (KEEP || EARLY_BLOCKS);     // sources held in registers
  __shared__ double partial[k_totals][k_slices];  // this CTA's slices: per source ss, dot
  __shared__ double acc_partial[k_slices];        // this CTA's slices: sum of acc^2
  __shared__ double totals[k_totals], weights[k_sources], weight_sum, scale;  // SPREAD=0
  __shared__ unsigned long long bars[2];          // STAGE: one per stage
  extern __shared__ uint4 stage[];                // STAGE: [stage][m][k_staged][32 lanes]
  double* scratch = reinterpret_cast<double*>(stage) + (threadIdx.x >> 5) * 32 * k_totals;  // RED: [lane][k_totals]

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rank = B == 1 ? 0 : static_cast<int>(cluster_rank());
  const long long first = static_cast<long long>(blockIdx.x / B) * TPC;  // this cluster's first token
  const int mine = (k_slices - rank + B - 1) / B;  // slices of this CTA
  auto blocks_of = [&](long long t) { return reinterpret_cast<const unsigned short*>(p.blocks) + t * p.block_token_stride; };
  auto prefix_of = [&](long long t) { return reinterpret_cast<unsigned short*>(p.prefix) + t * H; };
  auto delta_of = [&](long long t) { return reinterpret_cast<const unsigned short*>(p.delta) + t * H; };
  // This warp's j-th slice (k_slices when it has none), its CTA-local index, and where lane
  // `lane` finds source n (n == NB: prefix, n == NB + 1: delta) of it in stage s.
  auto local_of = [&](int j) { return warp + j * k_warps; };
  auto slice_of = [&](int j) {
    const int k = rank + B * local_of(j);
    return k < k_slices ? k : k_slices;
  };
  auto staged = [&](int s, int j, int n) -> uint4* { return stage + ((s * k_mine + local_of(j)) * k_staged + n) * 32 + lane; };

  // STAGE: one thread per slice issues that slice's copies of token t into stage s; thread 0
  // first tells the stage's barrier how many bytes to expect. Older inputs (`olds`: the block
  // sums) and newer ones (prefix, delta) separately, so the block sums can go before the wait.
  auto expect = [&](int s) {
    if (threadIdx.x == 0) mbarrier_expect(&bars[s], static_cast<unsigned>(mine * k_staged * 512));
  };
  auto fetch = [&](long long t, int s, bool olds) {
    // The stage may have been read and written by this CTA's threads (generic proxy) for an
    // earlier token: order that before the bulk copies (async proxy) overwrite it.
    if (threadIdx.x < mine) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int m = threadIdx.x; m < mine; m += THREADS) {
      const int k = rank + B * m;
      uint4* dst = stage + (s * k_mine + m) * k_staged * 32;
      if (olds) {
        for (int n = 0; n < NB; ++n) bulk_copy_slice(dst + n * 32, blocks_of(t) + n * p.block_stride + k * k_slice, &bars[s]);
      } else {
        bulk_copy_slice(dst + NB * 32, prefix_of(t) + k * k_slice, &bars[s]);
#if HAS_DELTA
        bulk_copy_slice(dst + (NB + 1) * 32, delta_of(t) + k * k_slice, &bars[s]);
#endif
      }
    }
  };
  if (STAGE) {
    if (threadIdx.x == 0) {
      mbarrier_init(&bars[0]);
      mbarrier_init(&bars[1]);
    }
    __syncthreads();
    expect(0);
    if (NB > 0 && EARLY_BLOCKS) fetch(first, 0, true);
  }

  // Older inputs first: Q = rms_w * res_w (an fp32 product, as a double), kept in registers for
  // every token, and, when held in registers with EARLY_BLOCKS, the block sums.
  double q[k_per_warp][8];
  uint4 held[k_hold ? k_per_warp : 1][k_hold ? k_sources : 1];
  for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int, int e) {
    const uint4 a = load_old(reinterpret_cast<const unsigned short*>(p.rms_w) + e);
    const uint4 b = load_old(reinterpret_cast<const unsigned short*>(p.res_w) + e);
    const unsigned wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const unsigned sh = (i & 1) * 16;
      q[j][i] = static_cast<double>(__fmul_rn(bf16_to_f32(wa[i / 2] >> sh), bf16_to_f32(wb[i / 2] >> sh)));
    }
    if (k_hold && EARLY_BLOCKS) {
#pragma unroll
      for (int n = 0; n < NB; ++n) held[k_hold ? j : 0][k_hold ? n : 0] = load_old(blocks_of(first) + n * p.block_stride + e);
    }
  });
#if READ_PREFIX_EARLY
  uint4 early_prefix[k_per_warp];
  for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int, int e) { early_prefix[j] = load_new(prefix_of(first) + e); });
#endif
  kk3_pdl_wait();
  if (STAGE) {
    if (NB > 0 && !EARLY_BLOCKS) fetch(first, 0, true);
    fetch(first, 0, false);
  }

  for (int it = 0; it < TPC; ++it) {
    const long long t = first + it;
    if (t >= p.tokens) break;  // the same for every CTA of the cluster
    const int s = k_stages == 2 ? (it & 1) : 0;
    if (STAGE && TPC > 1 && it + 1 < TPC && t + 1 < p.tokens) {
      // The other stage was last read by token it - 1, which every thread has finished.
      expect(s ^ 1);
      fetch(t + 1, s ^ 1, true);
      fetch(t + 1, s ^ 1, false);
    }
    if (STAGE) mbarrier_wait(&bars[s], static_cast<unsigned>(it >> 1) & 1u);
    const unsigned short* blocks = blocks_of(t);
    unsigned short* prefix = prefix_of(t);
    const unsigned short* delta = delta_of(t);
    auto block_at = [&](int n, int e) { return blocks + n * p.block_stride + e; };

    for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int slice, int e) {
      // The newest source first: p = bf16(prefix + delta), written back in place.
#if READ_PREFIX_EARLY
      uint4 newest = STAGE ? *staged(s, j, NB) : early_prefix[j];
#else
      uint4 newest = STAGE ? *staged(s, j, NB) : load_new(prefix + e);
#endif
#if HAS_DELTA
      const uint4 d = STAGE ? *staged(s, j, NB + 1) : load_new(delta + e);
      const unsigned wp[4] = {newest.x, newest.y, newest.z, newest.w}, wd[4] = {d.x, d.y, d.z, d.w};
      unsigned sum[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        sum[i] = pack2(f32_to_bf16_rn(__fadd_rn(bf16_to_f32(wp[i]), bf16_to_f32(wd[i]))),
                       f32_to_bf16_rn(__fadd_rn(bf16_to_f32(wp[i] >> 16), bf16_to_f32(wd[i] >> 16))));
      }
      newest = make_uint4(sum[0], sum[1], sum[2], sum[3]);
      *reinterpret_cast<uint4*>(prefix + e) = newest;
      if (STAGE) *staged(s, j, NB) = newest;  // the weighted sum reads p from here
#endif
      // Then the partials of every source, NC sources at a time.
#pragma unroll
      for (int c0 = 0; c0 < k_sources; c0 += k_chunk) {
        uint4 raw[k_chunk];
#pragma unroll
        for (int c = 0; c < k_chunk; ++c) {
          const int n = c0 + c;
          raw[c] = n >= k_sources ? make_uint4(0, 0, 0, 0)
                   : n == NB      ? newest
                   : STAGE        ? *staged(s, j, n)
                   : k_hold && EARLY_BLOCKS ? held[k_hold ? j : 0][k_hold ? n : 0]
                                            : load_old(block_at(n, e));
          if (k_hold && n < k_sources) held[k_hold ? j : 0][k_hold ? n : 0] = raw[c];
        }
        if (RED) {  // each lane's partials to this warp's scratch rows, summed below
#pragma unroll
          for (int c = 0; c < k_chunk; ++c) {
            if (c0 + c >= k_sources) break;
            double ss, dot;
            lane_partials(raw[c], q[j], ss, dot);
            double* row = scratch + lane * k_totals + 2 * (c0 + c);
            row[0] = ss;
            row[1] = dot;
          }
        } else {
          double v[2 * k_chunk];
          int index;
          slice_partials<k_chunk>(raw, q[j], v, lane, index);
          if (index >= 0 && 2 * c0 + index < k_totals) partial[2 * c0 + index][slice] = v[0];
        }
      }
      if (RED) {  // lane i sums partial i over the 32 lanes, in the butterfly's tree
        __syncwarp();
        if (lane < k_totals) partial[lane][slice] = tree_of_32(scratch + lane, k_totals);
        __syncwarp();
      }
    });
    if (B == 1) __syncthreads();
    else cluster_sync();

    // The totals over slices, then the softmax. SPREAD=0: one warp per total, warp 0 the softmax,
    // handed over in shared memory. SPREAD=1: every warp derives all of it (the same trees).
    double my_weight = 0.0, wsum = 0.0;  // SPREAD: lane n's w_n; the sum s of the weights, in every lane
    if (SPREAD) {
      double v[k_totals];
#pragma unroll
      for (int i = 0; i < k_totals; ++i) {
        double sum = 0.0;
#pragma unroll
        for (int k = lane; k < k_slices; k += 32) sum = __dadd_rn(sum, B == 1 ? partial[i][k] : load_peer(&partial[i][k], k % B));
        v[i] = sum;
      }
      int index;
      transpose_sum<k_totals>(v, lane, index);
      const int n = lane < k_sources ? lane : 0;
      const double ss = __shfl_sync(0xffffffffu, v[0], holder_lane<k_totals>(2 * n));
      const double dot = __shfl_sync(0xffffffffu, v[0], holder_lane<k_totals>(2 * n + 1));
      my_weight = softmax_lane(ss, dot, p.eps, lane, wsum);
    } else {
      for (int i = warp; i < k_totals; i += k_warps) {
        const double v = total_over_slices<B>(partial[i], lane);
        if (lane == 0) totals[i] = v;
      }
      __syncthreads();
      if (warp == 0) {
        const int n = lane < k_sources ? lane : 0;
        double sum;
        const double w = softmax_lane(totals[2 * n], totals[2 * n + 1], p.eps, lane, sum);
        if (lane < k_sources) weights[lane] = w;
        if (lane == 0) weight_sum = sum;
      }
      __syncthreads();
      wsum = weight_sum;
    }

    // acc = sum_n w_n V_n, in source order.
    double acc[k_per_warp][8];
    for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int, int e) {
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[j][i] = 0.0;
#pragma unroll
      for (int n = 0; n < k_sources; ++n) {
        const uint4 raw = STAGE ? *staged(s, j, n) : k_hold ? held[k_hold ? j : 0][k_hold ? n : 0]
                                                   : n < NB ? load_old(block_at(n, e)) : load_new(prefix + e);
        // The same product either way: w x exactly, or (w 2^896) (x 2^-896) exactly (w <= 1).
        const double wn = SPREAD ? __shfl_sync(0xffffffffu, my_weight, n) : weights[n];
        const double w = CVT ? wn : __dmul_rn(wn, k_unscale);
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[j][i] = __fma_rn(w, CVT ? element(raw, i) : scaled_element(raw, i), acc[j][i]);
      }
    });

    // The scale: 1 / s, or with the output norm rsqrt(sum acc^2 / H + out_eps * s^2).
#if HAS_OUT_NORM
    for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int slice, int) {
      double ss = 0.0;
#pragma unroll
      for (int i = 0; i < 8; ++i) ss = __fma_rn(acc[j][i], acc[j][i], ss);
      ss = warp_sum(ss);
      if (lane == 0) acc_partial[slice] = ss;
    });
    if (B == 1) __syncthreads();
    else cluster_sync();
    double r;
    if (SPREAD) {
      r = norm_scale(total_over_slices<B>(acc_partial, lane), wsum, p.out_eps);
      if (B > 1) cluster_arrive();  // this CTA has read its peers' partials of token t for the last time
    } else {
      if (warp == 0) {
        const double total = total_over_slices<B>(acc_partial, lane);
        if (lane == 0) scale = norm_scale(total, wsum, p.out_eps);
      }
      if (B > 1) cluster_arrive();
      __syncthreads();
      r = scale;
    }
#else
    if (B > 1) cluster_arrive();
    const double r = __ddiv_rn(1.0, wsum);
#endif

    unsigned short* out = reinterpret_cast<unsigned short*>(p.out) + t * H;
    for_my_slices<k_per_warp>(slice_of, lane, [&](int j, int, int e) {
      double o[8];
#if HAS_OUT_NORM
      const uint4 ow = load_old(reinterpret_cast<const unsigned short*>(p.out_w) + e);
#pragma unroll
      for (int i = 0; i < 8; ++i) o[i] = __dmul_rn(__dmul_rn(acc[j][i], r), element(ow, i));
#else
#pragma unroll
      for (int i = 0; i < 8; ++i) o[i] = __dmul_rn(acc[j][i], r);
#endif
      unsigned w[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) w[i] = pack2(f64_to_bf16_rn(o[2 * i]), f64_to_bf16_rn(o[2 * i + 1]));
      __stcs(reinterpret_cast<uint4*>(out + e), make_uint4(w[0], w[1], w[2], w[3]));
    });
    // Before the next token reuses the shared arrays and this stage: peers may still read this
    // CTA's partials until the cluster barrier, and this CTA's threads the stage and `scale`.
    if (B > 1) cluster_wait();
    else __syncthreads();
  }
  kk3_pdl_trigger();
}
