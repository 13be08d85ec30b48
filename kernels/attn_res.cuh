#pragma once
// attn_res: Block Attention Residuals (SPEC 1.2). One cluster of B CTAs per token (H split into
// B contiguous ranges of slices), each cluster working through its tokens t = c, c + G, ...
// (G clusters in the grid).
//
// The numerics contract: every variant computes bit for bit the same result, because the
// arithmetic is fixed by the data layout alone, never by a knob:
// - H is cut into slices of 256 elements, a slice into 32 units of 8 contiguous elements.
// - A unit's sums (per source: the sum of squares and the dot product with Q; later the sum of
//   acc^2) run over its 8 elements in order; a slice's 32 unit sums are added in the butterfly
//   tree (units u and u ^ 16 first, then ^ 8, ... ^ 1); a token's total over its K slices is:
//   lane l of one warp adds slices l, l + 32, ... in order, then the same butterfly over lanes.
// - The softmax: max, exp, then the butterfly sum z of the N values e_n = exp(logit_n - max).
//   The mix is left unnormalised, acc_i = sum_n e_n V_n,i (source order), which makes the
//   division by z cancel inside the output norm: out = acc * rsqrt(sum acc^2 / H + out_eps z^2)
//   * out_w; without the norm, out = acc * (1 / z).
// Knobs only choose which warp of which CTA takes a slice, how and when data is loaded, and
// how many tokens a cluster works through.
//
// Precision: the logits' sums are float64 (each bf16 converted exactly by the conversion pipe;
// products x*x and x*q, q = fp32 rms_w * res_w with 16 significant bits, are exact in a double),
// and so are the trees, the logits and the softmax. The mix is fp32 fused multiply-adds with the
// bound sum_n |e_n V_n| / 2^10 beside it: where |acc| falls below the bound (the sources cancel)
// the element is recomputed in float64, from the bf16 bits placed in a double's high word (the
// value times 2^-896, exact for zeros and subnormals too) and the weight times 2^896. The output
// product is fp32. A CPU emulation (bench/attn_res_precision.cpp, 21.5 M elements per case)
// found 87 to 221 elements beyond 1 bf16 ulp of the float64 reference with fp32 sums and mix,
// and none with this arithmetic; the contract allows none. The prefix update
// p = bf16(prefix + delta) is fp32, as specified. Compiled with -fmad=false; the fused
// multiply-adds are written out.
//
// PDL: prefix and delta come from the kernel launched just before: read after
// griddepcontrol.wait. The block sums and the weights are older and are fetched before it.
//
// Compile-time (the mode): H, NB (0..8), HAS_DELTA, HAS_OUT_NORM, BLOCK_WRITE. The knobs:
//   B       CTAs per token (a thread-block cluster when > 1); CTA r takes slices
//           [r K / B, (r + 1) K / B); the totals read the peers' partials over distributed
//           shared memory.
//   GPW     slices per warp: a CTA has ceil(ceil(K / B) / GPW) warps, warp w takes its CTA's
//           slices w, w + warps, ...
//   STAGE   1: the CTA's rows of every source (and delta) are copied into shared memory by
//           bulk asynchronous copies completing on an mbarrier; 0: requested into L2 by bulk
//           prefetches, then loaded into registers (and read again, from L2, for the mix).
//   TPC     tokens per cluster: the grid has ceil(T / TPC) clusters.
//   STAGES  (STAGE = 1) tokens in shared memory at once: the copies of the next STAGES - 1
//           tokens are in flight while a token is computed. (STAGE = 0 prefetches one token
//           ahead.)
//   SPREAD  1: every warp derives the totals and the softmax itself; 0: warp 0 does, and hands
//           the weights over in shared memory (one more block barrier, fewer instructions).
//   TRIGGER 1: griddepcontrol.launch_dependents right after the wait, so the next kernel's
//           CTAs start their own prologue while this one runs; 0: at the end.
//   REGS    0: registers as the compiler likes; R: at most about R per thread (launch bounds
//           asking for 65536 / (threads R) CTAs per SM), for more tokens in flight per SM.
#include "common/fault_point.cuh"
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
#ifndef BLOCK_WRITE
#define BLOCK_WRITE 0
#endif
#ifndef READ_PREFIX_EARLY
#define READ_PREFIX_EARLY 0  // test-only: read prefix and delta before the wait (a hazard)
#endif

namespace kk3_ar {

constexpr int k_slice = 256;                    // elements per slice: 32 units of 8
constexpr int k_slices = H / k_slice;           // K
constexpr int k_sources = NB + 1;               // the block sums, then p (the updated prefix)
constexpr int k_values = 2 * k_sources;         // per source: sum of squares, dot with Q
constexpr int k_rows = k_sources + HAS_DELTA;   // rows per token: blocks, prefix, delta
constexpr double k_up = 0x1p896;                // undoes the 2^-896 of a placed bf16
constexpr double k_inv_h = 1.0 / H;
static_assert(H % k_slice == 0 && H > 0, "H must be a positive multiple of 256");
static_assert(NB >= 0 && k_values <= 32, "NB from 0 to 15: transpose_sum gives each total its own lane");

/// Threads per CTA: ceil(ceil(K / B) / GPW) warps.
__host__ __device__ constexpr int threads_of(int b, int gpw) { return 32 * (((k_slices + b - 1) / b + gpw - 1) / gpw); }

/// Slice k's CTA, and the first slice of CTA r, when K slices are cut into B contiguous ranges.
template <int B>
__device__ __forceinline__ int first_slice(int r) { return r * k_slices / B; }
template <int B>
__device__ __forceinline__ int owner_of(int k) { return ((k + 1) * B - 1) / k_slices; }

/// Element i (0..7) of 8 packed bf16 values times 2^-896, as a double: exact for every finite
/// value, by integer operations only (sign, exponent and mantissa placed in the high word).
__device__ __forceinline__ double placed(const uint4& raw, int i) {
  const unsigned w = i < 2 ? raw.x : i < 4 ? raw.y : i < 6 ? raw.z : raw.w;
  const int top = static_cast<int>(i & 1 ? w : w << 16);
  // Shifted right arithmetically by 3, the sign lands in bits 31..28 (30..28 cleared by the
  // mask), exponent and mantissa in 27..13.
  return __hiloint2double(static_cast<int>(static_cast<unsigned>(top >> 3) & 0x8fffe000u), 0);
}

__device__ __forceinline__ float lo_f32(unsigned w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float hi_f32(unsigned w) { return __uint_as_float(w & 0xffff0000u); }

/// Two floats rounded to bf16 (nearest even), packed: lo in bits 15..0, hi in 31..16.
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// bf16(a + b) per element, the sum in fp32: the prefix update.
__device__ __forceinline__ uint4 add_bf16(const uint4& a, const uint4& b) {
  const unsigned wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
  unsigned s[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) s[i] = pack_bf16(__fadd_rn(lo_f32(wa[i]), lo_f32(wb[i])), __fadd_rn(hi_f32(wa[i]), hi_f32(wb[i])));
  return make_uint4(s[0], s[1], s[2], s[3]);
}

/// The fixed butterfly: every lane ends with the same sum.
__device__ __forceinline__ double warp_sum(double x) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) x = __dadd_rn(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

/// Sums Count values across the 32 lanes, each in the butterfly's tree, with Count - 1 + 5
/// shuffles rather than 5 Count: at each step (offset 16, 8, ..., 1) a lane keeps the lower or
/// upper half of its values (by the offset's lane bit) and adds its partner's copy of that half.
/// The pairs added are those of the butterfly, so every total equals warp_sum's bit for bit.
/// In the end a lane holds the total of at most one value: `index` says which (-1 for none).
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

/// The block barrier of one CTA, or of the whole cluster.
template <int B>
__device__ __forceinline__ void barrier() {
  if constexpr (B == 1) {
    __syncthreads();
  } else {
    cluster_sync();
  }
}

__device__ __forceinline__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// The double at `local` (an address of this CTA's shared memory) in CTA `rank` of the cluster.
template <int B>
__device__ __forceinline__ double load_shared(const double* local, int rank) {
  if constexpr (B == 1) {
    return *local;
  } else {
    unsigned remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local)), "r"(rank));
    double v;
    asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(remote) : "memory");
    return v;
  }
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

/// Copies `bytes` (a multiple of 16) from global to shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_address(dst)), "l"(src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}

/// Brings `bytes` (a multiple of 16) of global memory into L2.
__device__ __forceinline__ void prefetch_l2(const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

/// Orders this thread's generic-proxy accesses to shared memory before later bulk copies.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/// 8 bf16 from global memory that no kernel of this stream is writing (block sums, weights).
__device__ __forceinline__ uint4 load_old(const unsigned short* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }
/// 8 bf16 from global memory written by the previous kernel or by this thread.
__device__ __forceinline__ uint4 load_new(const unsigned short* p) { return *reinterpret_cast<const uint4*>(p); }

/// Q for a unit's 8 elements: the fp32 product rms_w * res_w (exact), as doubles.
__device__ __forceinline__ void unit_q(const uint4& rms, const uint4& res, double* q) {
  const unsigned a[4] = {rms.x, rms.y, rms.z, rms.w}, b[4] = {res.x, res.y, res.z, res.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    q[2 * i] = static_cast<double>(__fmul_rn(lo_f32(a[i]), lo_f32(b[i])));
    q[2 * i + 1] = static_cast<double>(__fmul_rn(hi_f32(a[i]), hi_f32(b[i])));
  }
}

/// Element i (0..7) of 8 packed bf16 values as a float (exact).
__device__ __forceinline__ float element(const uint4& raw, int i) {
  const unsigned w = i < 2 ? raw.x : i < 4 ? raw.y : i < 6 ? raw.z : raw.w;
  return i & 1 ? hi_f32(w) : lo_f32(w);
}

/// Element i (0..7) of 8 packed bf16 values as a double, by the conversion instruction (exact;
/// it runs on the conversion pipe, which this kernel otherwise leaves nearly idle, and costs two
/// issue slots where placing the bits and scaling costs five).
__device__ __forceinline__ double converted(const uint4& raw, int i) {
  return static_cast<double>(element(raw, i));
}

/// One source's unit sums over the 8 elements in order: of the squares, of the products with Q.
__device__ __forceinline__ void unit_sums(const uint4& raw, const double* q, double& ss, double& dot) {
  ss = 0.0;
  dot = 0.0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const double x = converted(raw, i);
    ss = __fma_rn(x, x, ss);
    dot = __fma_rn(x, q[i], dot);
  }
}

/// The butterfly's sum over lanes Base, Base + Step, ... of column[l * stride] (pairs l, l + 16
/// first, then l, l + 8 of those, ...), computed by one thread from shared memory: with Base 0
/// and Step 1, the same bits as warp_sum and transpose_sum give.
template <int Base = 0, int Step = 1>
__device__ __forceinline__ double tree_of_32(const double* column, int stride) {
  if constexpr (Step == 16) {
    return __dadd_rn(column[Base * stride], column[(Base + 16) * stride]);
  } else {
    return __dadd_rn(tree_of_32<Base, 2 * Step>(column, stride), tree_of_32<Base + Step, 2 * Step>(column, stride));
  }
}

/// The total over the token's K slices of one per-slice value, in the fixed tree, by a whole
/// warp: lane l adds slices l, l + 32, ... in order, then warp_sum. `row` is indexed by local
/// slice; slice k lives in the shared memory of its owner CTA.
template <int B>
__device__ __forceinline__ double slices_total_warp(const double* row, int lane) {
  double sum = 0.0;
  for (int k = lane; k < k_slices; k += 32) {
    const int r = owner_of<B>(k);
    sum = __dadd_rn(sum, load_shared<B>(row + (k - first_slice<B>(r)), r));
  }
  return warp_sum(sum);
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

/// The token's weights, derived by one warp from the slice partials part[value][local slice]
/// of every CTA of the cluster: the totals over slices in the fixed tree (lane l adds slices l,
/// l + 32, ..., then the butterfly, all 2N values at once), then lane n < N computes logit n
/// and returns e_n = exp(logit_n - max) (0 in lanes >= N); every lane gets z, the sum of the e_n.
template <int B, int Mine>
__device__ __forceinline__ double token_weight(const double (*part)[Mine], int lane, float eps, double& z) {
  double v[k_values];
#pragma unroll
  for (int i = 0; i < k_values; ++i) v[i] = 0.0;
  for (int k = lane; k < k_slices; k += 32) {
    const int r = owner_of<B>(k), m = k - first_slice<B>(r);
#pragma unroll
    for (int i = 0; i < k_values; ++i) v[i] = __dadd_rn(v[i], load_shared<B>(&part[i][m], r));
  }
  int index;
  transpose_sum<k_values>(v, lane, index);
  const int n = lane < k_sources ? lane : 0;
  const double ss = __shfl_sync(0xffffffffu, v[0], holder_lane<k_values>(2 * n));
  const double dot = __shfl_sync(0xffffffffu, v[0], holder_lane<k_values>(2 * n + 1));
  const double logit = lane < k_sources ? __dmul_rn(dot, rsqrt(__fma_rn(ss, k_inv_h, static_cast<double>(eps)))) : -1.0e308;
  double top = logit;
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2) top = fmax(top, __shfl_xor_sync(0xffffffffu, top, offset));
  const double e = lane < k_sources ? exp(__dsub_rn(logit, top)) : 0.0;
  z = warp_sum(e);
  return e;
}

}  // namespace kk3_ar

/// The knobs are described at the top of this file.
template <int B, int GPW, int STAGE, int TPC, int STAGES, int SPREAD, int TRIGGER, int REGS>
__global__ void __launch_bounds__(kk3_ar::threads_of(B, GPW), REGS ? 65536 / (kk3_ar::threads_of(B, GPW) * REGS) : 1)
    attn_res(const kk3_attn_res_params p) {
  using namespace kk3_ar;
  KK3_FAULT_POINT();  // empty unless a test injects a fault (common/fault_injection.cuh)
  constexpr int k_mine = (k_slices + B - 1) / B;            // slices of the busiest CTA
  constexpr int k_warps = (k_mine + GPW - 1) / GPW;
  constexpr int k_stages = STAGE ? STAGES : 1;
  // Sources per load batch of the logits pass: a token split over 4 or more CTAs is latency
  // bound, so every source of a slice is loaded at once; whole-token CTAs keep registers for
  // occupancy and take three at a time.
  constexpr int k_batch = B >= 4 ? k_sources : (k_sources < 3 ? k_sources : 3);
  // How a slice's 2N unit sums are added across the lanes: with 8 or more, each lane writes its
  // row to shared memory and lane i adds column i in the butterfly's tree (fewer instructions
  // and a shorter chain than 2N - 1 + 5 shuffle steps); with fewer, transpose_sum.
  constexpr bool k_columns = k_values >= 8;
  constexpr int k_row = 2 * (k_sources | 1);  // doubles per lane row: an odd number of 16-byte pairs, no bank conflicts
  // Per warp: the row scratch of the logits pass, which the mix of the warp's slices (fp32,
  // kept from the mix pass to the output pass) reuses: different phases of one warp.
  constexpr int k_rows_bytes = k_columns ? 32 * k_row * 8 : 0, k_mix_bytes = HAS_OUT_NORM ? GPW * 1024 : 0;
  constexpr int k_warp_bytes = k_rows_bytes > k_mix_bytes ? k_rows_bytes : k_mix_bytes;
  static_assert(STAGE || STAGES == 1, "shared-memory stages need STAGE = 1");
  static_assert(B >= 1 && B <= 16 && GPW >= 1 && TPC >= 1 && STAGES >= 1, "knob out of range");
  __shared__ double part[2][k_values][k_mine];    // per token parity: this CTA's slice partials
  __shared__ double norm_part[2][k_mine];         // per token parity: this CTA's slice sums of acc^2
  __shared__ double weights[SPREAD ? k_warps : 1][k_sources + 1];  // e_n, then z (per warp with SPREAD)
  __shared__ unsigned long long full[k_stages];   // STAGE: one mbarrier per stage
  // Dynamic: STAGE: [stage][row][local slice][32 units] of uint4; then per warp its scratch:
  // the rows of the column sums ([lane][k_row] doubles) or its slices' mix ([j][half][lane] of
  // float4).
  extern __shared__ uint4 stage[];
  char* warp_scratch = reinterpret_cast<char*>(stage + (STAGE ? k_stages * k_rows * k_mine * 32 : 0)) + (threadIdx.x >> 5) * k_warp_bytes;
  double* rows = reinterpret_cast<double*>(warp_scratch);
  float4* mixed = reinterpret_cast<float4*>(warp_scratch);
  if (blockDim.x != 32 * k_warps) asm volatile("trap;");  // the host's geometry disagrees

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rank = B == 1 ? 0 : static_cast<int>(cluster_rank());
  const int first = first_slice<B>(rank), count = first_slice<B>(rank + 1) - first;  // this CTA's slices
  const long long cluster = blockIdx.x / B, clusters = gridDim.x / B;
  const int tokens = p.tokens > cluster ? static_cast<int>((p.tokens - cluster + clusters - 1) / clusters) : 0;
  auto token_of = [&](int i) { return cluster + static_cast<long long>(i) * clusters; };
  const auto* blocks = reinterpret_cast<const unsigned short*>(p.blocks);
  auto block_row = [&](long long t, int n) { return blocks + t * p.block_token_stride + n * p.block_stride; };
  auto prefix_row = [&](long long t) { return reinterpret_cast<unsigned short*>(p.prefix) + t * H; };
  auto delta_row = [&](long long t) { return reinterpret_cast<const unsigned short*>(p.delta) + t * H; };
  const auto* rms_w = reinterpret_cast<const unsigned short*>(p.rms_w);
  const auto* res_w = reinterpret_cast<const unsigned short*>(p.res_w);
  const auto* out_w = reinterpret_cast<const unsigned short*>(p.out_w);

  // STAGE: rows of stage s; one thread issues a token's copies, older rows (the block sums)
  // and newer ones (prefix, delta) separately, so the older can go before the PDL wait.
  auto staged = [&](int s, int row, int m) { return stage + ((s * k_rows + row) * k_mine + m) * 32; };
  const unsigned row_bytes = static_cast<unsigned>(count) * 512u;
  auto issue = [&](long long t, int s, bool olds) {
    if (olds) {
      for (int n = 0; n < NB; ++n) bulk_copy(staged(s, n, 0), block_row(t, n) + first * k_slice, row_bytes, &full[s]);
    } else {
      bulk_copy(staged(s, NB, 0), prefix_row(t) + first * k_slice, row_bytes, &full[s]);
      if (HAS_DELTA) bulk_copy(staged(s, NB + 1, 0), delta_row(t) + first * k_slice, row_bytes, &full[s]);
    }
  };
  // STAGE = 0: the rows are requested into L2 ahead of the loads (a token's whole share at once,
  // the next token's while this one is computed), so the loads in flight are not bounded by
  // the registers that receive them.
  auto prefetch = [&](long long t, bool olds) {
    if (olds) {
      for (int n = 0; n < NB; ++n) prefetch_l2(block_row(t, n) + first * k_slice, row_bytes);
    } else {
      prefetch_l2(prefix_row(t) + first * k_slice, row_bytes);
      if (HAS_DELTA) prefetch_l2(delta_row(t) + first * k_slice, row_bytes);
    }
  };
  const bool issuer = threadIdx.x == 0 && count > 0;
  if (STAGE) {
    if (threadIdx.x == 0) {
      for (int s = 0; s < k_stages; ++s) mbarrier_init(&full[s]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int i = 0; i < k_stages && i < tokens; ++i) {
        mbarrier_expect(&full[i], k_rows * row_bytes);
        if (count > 0) issue(token_of(i), i, true);
      }
    }
  } else if (issuer && tokens > 0) {  // the first token's block sums and the weights into L2
    prefetch(token_of(0), true);
    prefetch_l2(rms_w + first * k_slice, row_bytes);
    prefetch_l2(res_w + first * k_slice, row_bytes);
    if (HAS_OUT_NORM) prefetch_l2(out_w + first * k_slice, row_bytes);
  }
  if (!READ_PREFIX_EARLY) kk3_pdl_wait();
  if (TRIGGER) kk3_pdl_trigger();  // the next kernel may start its own prologue now
  if (STAGE && issuer) {
    for (int i = 0; i < k_stages && i < tokens; ++i) issue(token_of(i), i, false);
  }
  if (!STAGE && issuer && tokens > 0) prefetch(token_of(0), false);

  for (int i = 0; i < tokens; ++i) {
    const long long t = token_of(i);
    const int s = i % k_stages, buf = i & 1;
    if (STAGE) mbarrier_wait(&full[s], static_cast<unsigned>(i / k_stages) & 1u);
    if (!STAGE && issuer && i + 1 < tokens) {
      prefetch(token_of(i + 1), true);
      prefetch(token_of(i + 1), false);
    }
    unsigned short* prefix = prefix_row(t);
    const unsigned short* token_blocks = block_row(t, 0);
    const unsigned short* delta = delta_row(t);
    const int block_stride = static_cast<int>(p.block_stride);
    // The rows of local slice m for this lane: block n, and p = bf16(prefix + delta).
    auto source = [&](int n, int m) -> uint4 {
      if (STAGE) return staged(s, n, m)[lane];
      return load_old(token_blocks + (n * block_stride + (first + m) * k_slice + 8 * lane));
    };
    auto newest = [&](int m, bool again) -> uint4 {
      const int e = (first + m) * k_slice + 8 * lane;
      if (STAGE) {
        const uint4 old = staged(s, NB, m)[lane];
        return HAS_DELTA ? add_bf16(old, staged(s, NB + 1, m)[lane]) : old;
      }
      if (again) return load_new(prefix + e);  // already p: written below by this thread
      const uint4 old = load_new(prefix + e);
      return HAS_DELTA ? add_bf16(old, load_new(delta + e)) : old;
    };

    // The logits pass: per slice, every source's unit sums, reduced across the lanes.
#pragma unroll 1
    for (int j = 0; j < GPW; ++j) {
      const int m = warp + j * k_warps;
      if (m >= count) break;
      const int e = (first + m) * k_slice + 8 * lane;
      double q[8];
      unit_q(load_old(rms_w + e), load_old(res_w + e), q);
      const uint4 newer = newest(m, false);
      if (HAS_DELTA) *reinterpret_cast<uint4*>(prefix + e) = newer;
#pragma unroll
      for (int c0 = 0; c0 < k_sources; c0 += k_batch) {
        uint4 raw[k_batch];
#pragma unroll
        for (int c = 0; c < k_batch; ++c) {
          const int n = c0 + c;
          raw[c] = n < NB ? source(n, m) : newer;
        }
        double v[2 * k_batch];
#pragma unroll
        for (int c = 0; c < k_batch; ++c) {
          if (c0 + c < k_sources) {
            unit_sums(raw[c], q, v[2 * c], v[2 * c + 1]);
          } else {
            v[2 * c] = v[2 * c + 1] = 0.0;
          }
        }
        if (k_columns) {
#pragma unroll
          for (int c = 0; c < k_batch; ++c) {
            if (c0 + c < k_sources) *reinterpret_cast<double2*>(rows + lane * k_row + 2 * (c0 + c)) = make_double2(v[2 * c], v[2 * c + 1]);
          }
        } else {
          int index;
          transpose_sum<2 * k_batch>(v, lane, index);
          if (index >= 0 && 2 * c0 + index < k_values) part[buf][2 * c0 + index][m] = v[0];
        }
      }
      if (k_columns) {
        __syncwarp();
        if (lane < k_values) part[buf][lane][m] = tree_of_32(rows + lane, k_row);
        __syncwarp();
      }
    }
    if (READ_PREFIX_EARLY && i == 0) kk3_pdl_wait();
    barrier<B>();

    // The weights e_n (unnormalised) and their sum z: each warp derives them (SPREAD) or warp
    // 0 does and hands them over; they stay in shared memory for the rare float64 mix.
    double* w = weights[SPREAD ? warp : 0];
    if (SPREAD || warp == 0) {
      double z;
      const double e = token_weight<B, k_mine>(part[buf], lane, p.eps, z);
      if (lane < k_sources) w[lane] = e;
      if (lane == 0) w[k_sources] = z;
    }
    if (SPREAD) {
      __syncwarp();
    } else {
      __syncthreads();
    }
    float wf[k_sources], wb[k_sources];  // the weights, and times 2^-10 for the bound
#pragma unroll
    for (int n = 0; n < k_sources; ++n) {
      wf[n] = __double2float_rn(w[n]);
      wb[n] = __fmul_rn(wf[n], 0x1p-10f);
    }
    const double z = w[k_sources];

    // The mix acc = sum_n e_n V_n in source order: fp32 fused multiply-adds, with the bound
    // sum_n |e_n V_n| on their rounding. Where the sources nearly cancel (|acc| below 2^-10 of
    // the bound, a few elements in ten thousand) the element is computed again in float64, so
    // every element is within a quarter of a bf16 ulp of the exact mix of the weights. Without
    // the output norm the scale 1 / z is known and the output is written here; with it, the
    // mix waits in shared memory and its sums of squares go to the norm: per slice in fp32, by
    // the butterfly over the lanes (a sum of squares loses nothing to cancellation), then over
    // the slices in float64.
    const float inv_z = __double2float_rn(__drcp_rn(z));
    unsigned short* out = reinterpret_cast<unsigned short*>(p.out) + t * H;
#pragma unroll 1
    for (int j = 0; j < GPW; ++j) {
      const int m = warp + j * k_warps;
      if (m >= count) break;
      const int e = (first + m) * k_slice + 8 * lane;
      float a[8], bound[8];
#pragma unroll
      for (int x = 0; x < 8; ++x) a[x] = bound[x] = 0.0f;
      uint4 newer;
#pragma unroll
      for (int n = 0; n < k_sources; ++n) {
        const uint4 raw = n == NB ? (newer = newest(m, true)) : source(n, m);
#pragma unroll
        for (int x = 0; x < 8; ++x) {
          const float v = element(raw, x);
          a[x] = __fmaf_rn(wf[n], v, a[x]);
          bound[x] = __fmaf_rn(wb[n], fabsf(v), bound[x]);
        }
      }
      bool cancels = false;
#pragma unroll
      for (int x = 0; x < 8; ++x) cancels |= !(fabsf(a[x]) >= bound[x]);
      if (cancels) {  // rare: the unit again, in float64 (the weights times 2^896 undo the placing)
        double d[8];
#pragma unroll
        for (int x = 0; x < 8; ++x) d[x] = 0.0;
#pragma unroll
        for (int n = 0; n < k_sources; ++n) {
          const uint4 raw = n == NB ? newest(m, true) : source(n, m);
          const double wn = __dmul_rn(w[n], k_up);
#pragma unroll
          for (int x = 0; x < 8; ++x) d[x] = __fma_rn(wn, placed(raw, x), d[x]);
        }
#pragma unroll
        for (int x = 0; x < 8; ++x) {
          if (!(fabsf(a[x]) >= bound[x])) a[x] = __double2float_rn(d[x]);
        }
      }
      if (BLOCK_WRITE) {
        *reinterpret_cast<uint4*>(const_cast<unsigned short*>(token_blocks) + (static_cast<int>(p.block_write_idx) * block_stride + e)) = newer;
      }
      if (HAS_OUT_NORM) {
        float sq = 0.0f;
#pragma unroll
        for (int x = 0; x < 8; ++x) sq = __fmaf_rn(a[x], a[x], sq);
#pragma unroll
        for (int offset = 16; offset >= 1; offset /= 2) sq = __fadd_rn(sq, __shfl_xor_sync(0xffffffffu, sq, offset));
        if (lane == 0) norm_part[buf][m] = static_cast<double>(sq);
        mixed[(2 * j) * 32 + lane] = make_float4(a[0], a[1], a[2], a[3]);
        mixed[(2 * j + 1) * 32 + lane] = make_float4(a[4], a[5], a[6], a[7]);
      } else {
        __stcs(reinterpret_cast<uint4*>(out + e),
               make_uint4(pack_bf16(__fmul_rn(a[0], inv_z), __fmul_rn(a[1], inv_z)), pack_bf16(__fmul_rn(a[2], inv_z), __fmul_rn(a[3], inv_z)),
                          pack_bf16(__fmul_rn(a[4], inv_z), __fmul_rn(a[5], inv_z)), pack_bf16(__fmul_rn(a[6], inv_z), __fmul_rn(a[7], inv_z))));
      }
    }
    if (STAGE) fence_proxy_async();  // this thread's reads of stage s come before its refill

    // With the norm: the scale rsqrt(sum acc^2 / H + out_eps z^2) from every slice's partial.
    float scale = 1.0f;
    if (HAS_OUT_NORM) {
      barrier<B>();
      const double total = slices_total_warp<B>(norm_part[buf], lane);
      scale = __double2float_rn(rsqrt(__fma_rn(total, k_inv_h, __dmul_rn(static_cast<double>(p.out_eps), __dmul_rn(z, z)))));
    } else if (STAGE) {
      __syncthreads();
    }
    // Stage s is free: the copies of the token STAGES later go in flight now.
    if (STAGE && threadIdx.x == 0 && i + k_stages < tokens) {
      mbarrier_expect(&full[s], k_rows * row_bytes);
      if (count > 0) {
        issue(token_of(i + k_stages), s, true);
        issue(token_of(i + k_stages), s, false);
      }
    }
    if (HAS_OUT_NORM) {
#pragma unroll 1
      for (int j = 0; j < GPW; ++j) {
        const int m = warp + j * k_warps;
        if (m >= count) break;
        const int e = (first + m) * k_slice + 8 * lane;
        const float4 lo = mixed[(2 * j) * 32 + lane], hi = mixed[(2 * j + 1) * 32 + lane];
        const float a[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        const uint4 ow = load_old(out_w + e);
        const unsigned wo[4] = {ow.x, ow.y, ow.z, ow.w};
        unsigned packed[4];
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          packed[x] = pack_bf16(__fmul_rn(__fmul_rn(a[2 * x], scale), lo_f32(wo[x])), __fmul_rn(__fmul_rn(a[2 * x + 1], scale), hi_f32(wo[x])));
        }
        __stcs(reinterpret_cast<uint4*>(out + e), make_uint4(packed[0], packed[1], packed[2], packed[3]));
      }
    }
  }
  if (B > 1) cluster_sync();  // no CTA leaves while a peer may still read its shared memory
  if (!TRIGGER) kk3_pdl_trigger();
}
