#pragma once
// attn_res: Block Attention Residuals (SPEC 1.2), in fp32 at the bandwidth floor. One cluster of
// B CTAs per token (H split into B contiguous ranges of slices); every source row is read from
// HBM once, into registers or into a ring of shared-memory rows, and the mix is formed by an
// online softmax over the sources, so no row is read twice.
//
// The numerics contract (SPEC 1.3): every variant computes bit for bit the same result, because
// the arithmetic is fixed by the data layout alone, never by a knob:
// - H is cut into slices of 256 elements, a slice into 32 units of 8 contiguous elements.
// - A unit's sums (per source: the sum of squares and the dot product with Q = rms_w * res_w,
//   fp32; later the sum of acc^2) run over its 8 elements in order, by fused multiply-adds;
//   a slice's 32 unit sums are added in the butterfly tree (units u and u ^ 16 first, then ^ 8,
//   ... ^ 1); a token's total over its K slices: lane l of a warp adds slices l, l + 32, ... in
//   order, then the same butterfly over the lanes.
// - The softmax is online, over the sources in order (blocks 0..NB-1, then p): with the
//   running maximum `top` of the logits, each source first rescales the running mix acc and the
//   running weight sum s by e^(top - max(top, l)) when the maximum moves (not at all when it
//   does not), then adds itself with weight e^(l - top): acc_i = fma(w, V_i, acc_i), s += w.
//   The first source sets acc = V, s = 1. The chunking of the sources (NC) only decides how many
//   logits are reduced at once; the steps stay per source, in order.
// - The scalar functions (logit, e^x, the output scale) are correctly rounded fp32 operations
//   in a fixed order (kernels/attn_res_math.h), so a host emulation gives the same bits
//   (bench/attn_res_precision.cpp).
// - out = bf16(acc * scale * out_w) with scale = 1 / sqrt(sum acc^2 / H + out_eps s^2), or
//   bf16(acc * (1 / s)) without the output norm. p = bf16(prefix + delta), the sum in fp32.
// Every operation is written as an explicit round-to-nearest intrinsic, so the bits do not
// depend on -fmad. Knobs only choose which warp of which CTA takes a slice, how and when rows
// are loaded, and how many logits are reduced per barrier.
//
// PDL: prefix and delta come from the kernel launched just before: read after
// griddepcontrol.wait. The block sums and the weights are older and are fetched before it.
//
// Compile-time (the mode): H, NB (0..15), HAS_DELTA, HAS_OUT_NORM, BLOCK_WRITE, given as the
// macros KK3_ATTN_RES_H, KK3_ATTN_RES_NB, ... (each required). The knobs:
//   B       CTAs per token (a thread-block cluster when > 1); CTA r takes slices
//           [r K / B, (r + 1) K / B); the totals read the peers' partials over distributed
//           shared memory.
//   GPW     slices per warp: a CTA has ceil(ceil(K / B) / GPW) warps, warp w takes its CTA's
//           slices w, w + warps, ...; a thread keeps acc and Q of its GPW units in registers.
//   NC      sources per chunk: the logits of NC sources are reduced at one barrier (0: all N).
//   STAGE   0: rows are loaded into registers; 1: bulk asynchronous copies of the CTA's part of
//           each row into a ring of shared-memory rows, completing on one mbarrier per row.
//   UNROLL  (STAGE 0) chunks whose loads are in flight: with 2, the next chunk's rows are
//           requested before this chunk's logits are reduced.
//   STAGES  (STAGE 1) chunks the ring holds (plus delta's row): STAGES - 1 chunks ahead.
//   TPC     (STAGE 1) tokens per cluster: the grid has ceil(T / TPC) clusters, cluster c takes
//           tokens c, c + clusters, ...; the ring runs on from one token's rows into the next's,
//           and Q is loaded once for all of them.
//   TRIGGER 1: griddepcontrol.launch_dependents right after the wait, so the next kernel's
//           CTAs start their own prologue while this one runs; 0: at the end.
#include "attn_res_math.h"
#include "attn_res_params.h"
#include "common/fault_point.cuh"
#include "common/pdl.cuh"

// The mode's macros carry the family's prefix (kk3tune defines them, a downstream build copies
// them from the dispatch header's mode_defines()); a missing one is an error, never a default.
#ifndef KK3_ATTN_RES_H
#error "attn_res.cuh: KK3_ATTN_RES_H is not defined (a mode macro: mode_defines())"
#endif
#ifndef KK3_ATTN_RES_NB
#error "attn_res.cuh: KK3_ATTN_RES_NB is not defined (a mode macro: mode_defines())"
#endif
#ifndef KK3_ATTN_RES_HAS_DELTA
#error "attn_res.cuh: KK3_ATTN_RES_HAS_DELTA is not defined (a mode macro: mode_defines())"
#endif
#ifndef KK3_ATTN_RES_HAS_OUT_NORM
#error "attn_res.cuh: KK3_ATTN_RES_HAS_OUT_NORM is not defined (a mode macro: mode_defines())"
#endif
#ifndef KK3_ATTN_RES_BLOCK_WRITE
#error "attn_res.cuh: KK3_ATTN_RES_BLOCK_WRITE is not defined (a mode macro: mode_defines())"
#endif
#ifndef KK3_ATTN_RES_READ_PREFIX_EARLY
// test-only: read prefix and delta before the wait (a hazard)
#define KK3_ATTN_RES_READ_PREFIX_EARLY 0
#endif

namespace kk3_ar {

// The mode as constants of this namespace: the kernel's names for them, no macro of their own.
constexpr int H = KK3_ATTN_RES_H;
constexpr int NB = KK3_ATTN_RES_NB;
constexpr bool HAS_DELTA = KK3_ATTN_RES_HAS_DELTA != 0;
constexpr bool HAS_OUT_NORM = KK3_ATTN_RES_HAS_OUT_NORM != 0;
constexpr bool BLOCK_WRITE = KK3_ATTN_RES_BLOCK_WRITE != 0;
constexpr bool READ_PREFIX_EARLY = KK3_ATTN_RES_READ_PREFIX_EARLY != 0;
static_assert((KK3_ATTN_RES_HAS_DELTA) == 0 || (KK3_ATTN_RES_HAS_DELTA) == 1,
              "KK3_ATTN_RES_HAS_DELTA is 0 or 1");
static_assert((KK3_ATTN_RES_HAS_OUT_NORM) == 0 || (KK3_ATTN_RES_HAS_OUT_NORM) == 1,
              "KK3_ATTN_RES_HAS_OUT_NORM is 0 or 1");
static_assert((KK3_ATTN_RES_BLOCK_WRITE) == 0 || (KK3_ATTN_RES_BLOCK_WRITE) == 1,
              "KK3_ATTN_RES_BLOCK_WRITE is 0 or 1");

constexpr int k_slice = 256;                   // elements per slice: 32 units of 8
constexpr int k_slices = H / k_slice;          // K
constexpr int k_sources = NB + 1;              // the block sums, then p (the updated prefix)
constexpr int k_rows = k_sources + HAS_DELTA;  // rows per token: blocks, prefix, delta
constexpr float k_hidden = static_cast<float>(H);
static_assert(H % k_slice == 0 && H > 0, "H must be a positive multiple of 256");
static_assert(NB >= 0 && NB <= 15, "NB from 0 to 15: a chunk's 2 N sums fit the 32 lanes");

/// Threads per CTA: ceil(ceil(K / B) / GPW) warps.
__host__ __device__ constexpr int threads_of(int b, int gpw) {
  return 32 * (((k_slices + b - 1) / b + gpw - 1) / gpw);
}

/// Slice k's CTA, and the first slice of CTA r, when K slices are cut into B contiguous ranges.
template <int B>
__device__ __forceinline__ int first_slice(int r) {
  return r * k_slices / B;
}
template <int B>
__device__ __forceinline__ int owner_of(int k) {
  return ((k + 1) * B - 1) / k_slices;
}

__device__ __forceinline__ float lo_f32(unsigned w) {
  return __uint_as_float(w << 16);
}
__device__ __forceinline__ float hi_f32(unsigned w) {
  return __uint_as_float(w & 0xffff0000u);
}

/// Element i (0..7) of 8 packed bf16 values as a float (exact).
__device__ __forceinline__ float element(const uint4& raw, int i) {
  const unsigned w = i < 2 ? raw.x : i < 4 ? raw.y : i < 6 ? raw.z : raw.w;
  return i & 1 ? hi_f32(w) : lo_f32(w);
}

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
  for (int i = 0; i < 4; ++i)
    s[i] =
        pack_bf16(__fadd_rn(lo_f32(wa[i]), lo_f32(wb[i])), __fadd_rn(hi_f32(wa[i]), hi_f32(wb[i])));
  return make_uint4(s[0], s[1], s[2], s[3]);
}

/// The fixed butterfly: every lane ends with the same sum.
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int offset = 16; offset >= 1; offset /= 2)
    x = __fadd_rn(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

/// Sums Count values across the 32 lanes, each in the butterfly's tree, with Count - 1 + 5
/// shuffles rather than 5 Count: at each step (offset 16, 8, ..., 1) a lane keeps the lower or
/// upper half of its values (by the offset's lane bit) and adds its partner's copy of that half.
/// The pairs added are those of the butterfly, so every total equals warp_sum's bit for bit.
/// In the end a lane holds the total of at most one value: `index` says which (-1 for none).
template <int Count, int Offset = 16>
__device__ __forceinline__ void transpose_sum(float* v, int lane, int& index, int have = Count,
                                              int base = 0) {
  constexpr int half = (Count + 1) / 2;
  const bool upper = lane & Offset;
#pragma unroll
  for (int j = 0; j < half; ++j) {
    const float lo = v[j], hi = j + half < Count ? v[j + half] : 0.0f;
    v[j] = __fadd_rn(upper ? hi : lo, __shfl_xor_sync(0xffffffffu, upper ? lo : hi, Offset));
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

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Every thread of every CTA of the cluster arrives; shared-memory writes before it are visible
/// to the peers after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
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

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The float at `local` (an address of this CTA's shared memory) in CTA `rank` of the cluster.
template <int B>
__device__ __forceinline__ float load_shared(const float* local, int rank) {
  if constexpr (B == 1) {
    return *local;
  } else {
    unsigned remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;"
        : "=r"(remote)
        : "r"(smem_address(local)), "r"(rank));
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    return v;
  }
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
}

__device__ __forceinline__ void mbarrier_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
}

/// Waits until the phase of `bar` with the given parity (0 for its first use, then 1, 0, ...)
/// has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned ready = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(ready)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!ready);
}

/// Copies `bytes` (a multiple of 16) from global to shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_address(dst)),
      "l"(src), "r"(bytes), "r"(smem_address(bar))
      : "memory");
}

/// Orders this thread's generic-proxy accesses to shared memory before later bulk copies.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// 8 bf16 from global memory that no kernel of this stream is writing (block sums, weights).
__device__ __forceinline__ uint4 load_old(const unsigned short* p) {
  return __ldg(reinterpret_cast<const uint4*>(p));
}
/// 8 bf16 from global memory written by the previous kernel.
__device__ __forceinline__ uint4 load_new(const unsigned short* p) {
  return *reinterpret_cast<const uint4*>(p);
}

/// One source's unit sums over the 8 elements in order: of the squares, of the products with Q.
/// (x * x and x * q are exact in fp32: 8 and 8 + 16 significant bits; only the sums round.)
__device__ __forceinline__ void unit_sums(const uint4& raw, const float* q, float& ss, float& dot) {
  ss = 0.0f;
  dot = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float x = element(raw, i);
    ss = __fmaf_rn(x, x, ss);
    dot = __fmaf_rn(x, q[i], dot);
  }
}

/// The butterfly over the lanes of each of a warp's slices, for Values partial sums per slice
/// (v[j][value] of the warp's slice j), as few shuffle rounds as the 32 lanes allow: slices
/// J0, J0 + 1, ... go through one transpose_sum together while their values fit the lanes. The
/// lane left holding a slice's value stores it to part[value * Stride + local slice].
template <int Values, int Slices, int Stride, int J0 = 0>
__device__ __forceinline__ void reduce_slices(float (&v)[Slices][Values], float* part, int lane,
                                              int warp, int warps, int count) {
  constexpr int k_group = 32 / Values;
  constexpr int k_here = Slices - J0 < k_group ? Slices - J0 : k_group;
  float flat[k_here * Values];
#pragma unroll
  for (int j = 0; j < k_here; ++j) {
#pragma unroll
    for (int i = 0; i < Values; ++i) flat[j * Values + i] = v[J0 + j][i];
  }
  int index;
  transpose_sum<k_here * Values>(flat, lane, index);
  if (index >= 0) {
    const int m = warp + (J0 + index / Values) * warps;
    if (m < count) part[(index % Values) * Stride + m] = flat[0];
  }
  if constexpr (J0 + k_here < Slices)
    reduce_slices<Values, Slices, Stride, J0 + k_here>(v, part, lane, warp, warps, count);
}

/// The token's totals of Values per-slice sums, by one warp, in the fixed tree: lane l adds
/// slices l, l + 32, ... in order (part[value * Stride + local slice] of the slice's owner CTA),
/// then the butterfly; afterwards a lane holds at most one total, `index` says which.
template <int B, int Values, int Stride>
__device__ __forceinline__ void slices_total(const float* part, int lane, float (&v)[Values],
                                             int& index) {
#pragma unroll
  for (int i = 0; i < Values; ++i) v[i] = 0.0f;
  for (int k = lane; k < k_slices; k += 32) {
    const int r = owner_of<B>(k), m = k - first_slice<B>(r);
#pragma unroll
    for (int i = 0; i < Values; ++i)
      v[i] = __fadd_rn(v[i], load_shared<B>(part + i * Stride + m, r));
  }
  transpose_sum<Values>(v, lane, index);
}

}  // namespace kk3_ar

/// The knobs are described at the top of this file.
template <int B, int GPW, int NC, int STAGE, int UNROLL, int STAGES, int TPC, int TRIGGER>
__global__ void __launch_bounds__(kk3_ar::threads_of(B, GPW))
    attn_res(const kk3_attn_res_params p) {
  using namespace kk3_ar;
  namespace am = kk3_ar_math;
  KK3_FAULT_POINT();  // empty unless a test injects a fault (common/fault_injection.cuh)
  constexpr int k_mine = (k_slices + B - 1) / B;  // slices of the busiest CTA
  constexpr int k_warps = (k_mine + GPW - 1) / GPW;
  constexpr int k_nc = NC == 0 || NC > k_sources ? k_sources : NC;  // sources per chunk
  constexpr int k_chunks = (k_sources + k_nc - 1) / k_nc;
  constexpr int k_values = 2 * k_nc;  // per slice and chunk: each source's sum of squares and dot
  constexpr int k_ahead = STAGE ? 1 : (UNROLL < k_chunks ? UNROLL : k_chunks);  // register buffers
  constexpr int k_ring = STAGES * k_nc + HAS_DELTA;
  constexpr int k_slots = !STAGE ? 1 : NC == 0 || k_ring > k_rows ? k_rows : k_ring;  // ring rows
  constexpr bool k_mix = k_sources > 1;  // with one source there is nothing to weigh
  static_assert(
      B >= 1 && B <= 16 && GPW >= 1 && UNROLL >= 1 && UNROLL <= 2 && STAGES >= 1 && TPC >= 1,
      "knob out of range");
  static_assert(STAGE || STAGES == 1, "the ring's depth needs STAGE = 1");
  static_assert(!STAGE || UNROLL == 1, "register buffers are STAGE = 0's");
  static_assert(STAGE || TPC == 1, "tokens per cluster need the ring (STAGE = 1)");
  static_assert(k_values <= 32, "a chunk's sums must fit the lanes");
  // Per barrier parity: this CTA's slice partials of a chunk (the norm uses value 0).
  __shared__ float part[2][k_values][k_mine];
  __shared__ unsigned long long full[k_slots];            // STAGE: one mbarrier per ring row
  extern __shared__ uint4 ring[];                         // STAGE: [slot][local slice][32 units]
  if (blockDim.x != 32 * k_warps) asm volatile("trap;");  // the host's geometry disagrees

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rank = B == 1 ? 0 : static_cast<int>(cluster_rank());
  const int first = first_slice<B>(rank),
            count = first_slice<B>(rank + 1) - first;  // this CTA's slices
  const int base = first * k_slice;                    // this CTA's first element of a row
  // The cluster's tokens: t = cluster, cluster + clusters, ... (at most TPC of them).
  const long long cluster = blockIdx.x / B, clusters = gridDim.x / B;
  const int tokens =
      p.tokens > cluster ? static_cast<int>((p.tokens - cluster + clusters - 1) / clusters) : 0;
  auto token_of = [&](int i) { return cluster + static_cast<long long>(i) * clusters; };
  auto* const blocks = reinterpret_cast<unsigned short*>(p.blocks);
  auto* const prefix = reinterpret_cast<unsigned short*>(p.prefix);
  const auto* const delta = reinterpret_cast<const unsigned short*>(p.delta);
  const long long block_stride = p.block_stride;
  // Row r of token t (blocks 0..NB-1, prefix, delta), from this CTA's first element.
  auto row = [&](long long t, int r) -> const unsigned short* {
    return r < NB    ? blocks + (t * p.block_token_stride + r * block_stride + base)
           : r == NB ? prefix + (t * H + base)
                     : delta + (t * H + base);
  };
  // The element of this lane's unit in the warp's slice j, within the CTA's part of a row.
  auto unit = [&](int j) { return (warp + j * k_warps) * k_slice + 8 * lane; };
  auto mine = [&](int j) { return warp + j * k_warps < count; };
  auto chunk_end_row = [](int c) { return c == k_chunks - 1 ? k_rows : (c + 1) * k_nc; };

  // STAGE = 1: thread 0 issues the rows of the cluster's tokens in order (row g is row g % k_rows
  // of token g / k_rows), each into ring slot g % k_slots once the row k_slots before it is read.
  const unsigned row_bytes = static_cast<unsigned>(count) * 512u;
  const bool producer = STAGE && threadIdx.x == 0 && count > 0;
  const int total_rows = tokens * k_rows;
  int issued = 0;
  auto issue_until = [&](int limit, bool olds_only) {
    for (; issued < limit && issued < total_rows; ++issued) {
      const int i = issued / k_rows, r = issued - i * k_rows;
      if (olds_only && (i > 0 || r >= NB)) break;
      const int slot = issued % k_slots;
      mbarrier_expect(&full[slot], row_bytes);
      bulk_copy(ring + slot * k_mine * 32, row(token_of(i), r), row_bytes, &full[slot]);
    }
  };
  auto ring_unit = [&](int g, int j) -> uint4 {
    return ring[((g % k_slots) * k_mine + warp + j * k_warps) * 32 + lane];
  };
  auto wait_row = [&](int g) {
    if (count > 0) mbarrier_wait(&full[g % k_slots], static_cast<unsigned>(g / k_slots) & 1u);
  };

  // STAGE = 0 (one token): the block rows of the chunk in `cur` (with UNROLL = 2 the next chunk's
  // already in `next`); prefix and delta apart.
  uint4 cur[k_nc][GPW], next[k_nc][GPW];
  uint4 pre[GPW], dlt[GPW];
  auto load_blocks = [&](int c, uint4(&dst)[k_nc][GPW]) {
#pragma unroll
    for (int i = 0; i < k_nc; ++i) {
      const int n = c * k_nc + i;
      if (n < NB) {
#pragma unroll
        for (int j = 0; j < GPW; ++j) {
          if (mine(j)) dst[i][j] = load_old(row(cluster, n) + unit(j));
        }
      }
    }
  };
  auto load_news = [&]() {
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      if (mine(j)) {
        pre[j] = load_new(row(cluster, NB) + unit(j));
        if (HAS_DELTA) dlt[j] = load_new(row(cluster, NB + 1) + unit(j));
      }
    }
  };

  // The prologue: the older rows and Q before the wait, the newer after it.
  if (STAGE) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int s = 0; s < k_slots; ++s) mbarrier_init(&full[s]);
    }
    __syncthreads();
    if (producer) issue_until(k_slots, !READ_PREFIX_EARLY);
  } else if (tokens > 0) {
    load_blocks(0, cur);
    if (k_ahead == 2) load_blocks(1, next);
    if (READ_PREFIX_EARLY) load_news();
  }
  float q[GPW][8];  // Q = rms_w * res_w (fp32, exact) of this thread's units
  if (k_mix) {
    const auto* rms_w = reinterpret_cast<const unsigned short*>(p.rms_w) + base;
    const auto* res_w = reinterpret_cast<const unsigned short*>(p.res_w) + base;
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      const uint4 a = mine(j) ? load_old(rms_w + unit(j)) : make_uint4(0, 0, 0, 0);
      const uint4 b = mine(j) ? load_old(res_w + unit(j)) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int x = 0; x < 8; ++x) q[j][x] = __fmul_rn(element(a, x), element(b, x));
    }
  }
  if (!READ_PREFIX_EARLY) kk3_pdl_wait();
  if (TRIGGER) kk3_pdl_trigger();  // the next kernel may start its own prologue now
  if (producer) issue_until(k_slots, false);
  if (!STAGE && tokens > 0 && !READ_PREFIX_EARLY && k_chunks <= k_ahead) load_news();

  int barriers = 0;  // barriers passed: the parity of `part` to use
#pragma unroll 1
  for (int token = 0; token < tokens; ++token) {
    const long long t = token_of(token);
    const int g0 = token * k_rows;  // the token's first row in the ring's sequence
    float acc[GPW][8];
    float s = 1.0f, top = am::minus_infinity();  // the running weight sum and maximum logit
#pragma unroll 1
    for (int c = 0; c < k_chunks; ++c) {
      const int n0 = c * k_nc;
      const int here = k_sources - n0 < k_nc ? k_sources - n0 : k_nc;  // sources in this chunk
      if (!STAGE && c > 0) {  // this chunk's loads (UNROLL = 1), or the next chunk's (UNROLL = 2)
        if (k_ahead == 2) {
#pragma unroll
          for (int i = 0; i < k_nc; ++i) {
#pragma unroll
            for (int j = 0; j < GPW; ++j) cur[i][j] = next[i][j];
          }
        }
        const int ahead = c + k_ahead - 1;
        if (ahead < k_chunks) {
          load_blocks(ahead, k_ahead == 2 ? next : cur);
          if (ahead == k_chunks - 1 && !READ_PREFIX_EARLY) load_news();
        }
      }
      // The chunk's sources in registers; p = bf16(prefix + delta) is formed and written back.
      uint4 src[k_nc][GPW];
      if (STAGE) {
        for (int r = n0; r < chunk_end_row(c); ++r) wait_row(g0 + r);
      }
#pragma unroll
      for (int i = 0; i < k_nc; ++i) {
        const int n = n0 + i;
        if (n >= k_sources) break;
#pragma unroll
        for (int j = 0; j < GPW; ++j) {
          if (!mine(j)) {
            src[i][j] = make_uint4(0, 0, 0, 0);
            continue;
          }
          if (n < NB) {
            src[i][j] = STAGE ? ring_unit(g0 + n, j) : cur[i][j];
            continue;
          }
          const uint4 old = STAGE ? ring_unit(g0 + NB, j) : pre[j];
          const uint4 v =
              HAS_DELTA ? add_bf16(old, STAGE ? ring_unit(g0 + NB + 1, j) : dlt[j]) : old;
          if (HAS_DELTA) *reinterpret_cast<uint4*>(prefix + (t * H + base + unit(j))) = v;
          if (BLOCK_WRITE) {
            *reinterpret_cast<uint4*>(
                blocks +
                (t * p.block_token_stride + p.block_write_idx * block_stride + base + unit(j))) = v;
          }
          src[i][j] = v;
        }
      }
      if (STAGE) fence_proxy_async();  // this thread's reads of the ring come before its refills
      if (STAGE && TPC > 1 &&
          !k_mix) {  // one source: no chunk barrier frees the ring, this one does
        __syncthreads();
        if (producer) issue_until(g0 + k_rows + k_slots, false);
      }

      float rescale[k_nc], weight[k_nc];
      if (k_mix) {
        // The chunk's logits: unit sums, the butterfly per slice, then the total over the slices.
        float v[GPW][k_values];
#pragma unroll
        for (int j = 0; j < GPW; ++j) {
#pragma unroll
          for (int i = 0; i < k_nc; ++i) {
            if (i < here) {
              unit_sums(src[i][j], q[j], v[j][2 * i], v[j][2 * i + 1]);
            } else {
              v[j][2 * i] = v[j][2 * i + 1] = 0.0f;
            }
          }
        }
        float* chunk_part = &part[barriers & 1][0][0];
        reduce_slices<k_values, GPW, k_mine>(v, chunk_part, lane, warp, k_warps, count);
        barrier<B>();
        ++barriers;
        if (producer)
          issue_until(g0 + chunk_end_row(c) + k_slots,
                      false);  // the rows up to this chunk's are read
        float total[k_values];
        int index;
        slices_total<B, k_values, k_mine>(chunk_part, lane, total, index);
        // Lane i < here takes source n0 + i: its logit, the running maximum before and with it
        // (a prefix maximum over the lanes), then its step of the online softmax.
        const int i = lane < here ? lane : here - 1;
        const float ss = __shfl_sync(0xffffffffu, total[0], holder_lane<k_values>(2 * i));
        const float dot = __shfl_sync(0xffffffffu, total[0], holder_lane<k_values>(2 * i + 1));
        const float l = am::logit(ss, dot, k_hidden, p.eps);
        float upto = l;  // max of the chunk's logits 0..i
#pragma unroll
        for (int d = 1; d < k_nc; d *= 2) {
          const float o = __shfl_up_sync(0xffffffffu, upto, d);
          if (lane >= d) upto = fmaxf(upto, o);
        }
        float before = __shfl_up_sync(0xffffffffu, upto, 1);
        before = lane == 0 ? top : fmaxf(top, before);
        const am::softmax_step step = am::next_step(before, l);
#pragma unroll
        for (int k = 0; k < k_nc; ++k) {
          rescale[k] = __shfl_sync(0xffffffffu, step.rescale, k);
          weight[k] = __shfl_sync(0xffffffffu, step.weight, k);
        }
        top = __shfl_sync(0xffffffffu, step.top, here - 1);
      }

      // The online mix, source by source.
#pragma unroll
      for (int i = 0; i < k_nc; ++i) {
        if (i >= here) break;
        if (c == 0 && i == 0) {
#pragma unroll
          for (int j = 0; j < GPW; ++j) {
#pragma unroll
            for (int x = 0; x < 8; ++x) acc[j][x] = element(src[0][j], x);
          }
          continue;
        }
        if (rescale[i] != 1.0f) {
#pragma unroll
          for (int j = 0; j < GPW; ++j) {
#pragma unroll
            for (int x = 0; x < 8; ++x) acc[j][x] = __fmul_rn(acc[j][x], rescale[i]);
          }
          s = __fmul_rn(s, rescale[i]);
        }
#pragma unroll
        for (int j = 0; j < GPW; ++j) {
#pragma unroll
          for (int x = 0; x < 8; ++x)
            acc[j][x] = __fmaf_rn(weight[i], element(src[i][j], x), acc[j][x]);
        }
        s = __fadd_rn(s, weight[i]);
      }
      if (READ_PREFIX_EARLY && token == 0 && c == 0) kk3_pdl_wait();
    }

    // The output: normalised by the norm's scale (its sum of acc^2 over the token first), or
    // divided by s.
    float scale;
    if (HAS_OUT_NORM) {
      float sq[GPW][1];
#pragma unroll
      for (int j = 0; j < GPW; ++j) {
        sq[j][0] = 0.0f;
#pragma unroll
        for (int x = 0; x < 8; ++x) sq[j][0] = __fmaf_rn(acc[j][x], acc[j][x], sq[j][0]);
      }
      float* norm_part = &part[barriers & 1][0][0];
      reduce_slices<1, GPW, k_mine>(sq, norm_part, lane, warp, k_warps, count);
      barrier<B>();
      ++barriers;
      float total[1];
      int index;
      slices_total<B, 1, k_mine>(norm_part, lane, total, index);
      scale = am::norm_scale(__shfl_sync(0xffffffffu, total[0], holder_lane<1>(0)), s, k_hidden,
                             p.out_eps);
    } else {
      scale = am::div(1.0f, s);
    }
    const auto* out_w = reinterpret_cast<const unsigned short*>(p.out_w) + base;
    auto* out = reinterpret_cast<unsigned short*>(p.out) + (t * H + base);
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      if (!mine(j)) continue;
      unsigned packed[4];
      if (HAS_OUT_NORM) {
        const uint4 w = load_old(out_w + unit(j));
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          packed[x] =
              pack_bf16(__fmul_rn(__fmul_rn(acc[j][2 * x], scale), element(w, 2 * x)),
                        __fmul_rn(__fmul_rn(acc[j][2 * x + 1], scale), element(w, 2 * x + 1)));
        }
      } else {
#pragma unroll
        for (int x = 0; x < 4; ++x)
          packed[x] =
              pack_bf16(__fmul_rn(acc[j][2 * x], scale), __fmul_rn(acc[j][2 * x + 1], scale));
      }
      __stcs(reinterpret_cast<uint4*>(out + unit(j)),
             make_uint4(packed[0], packed[1], packed[2], packed[3]));
    }
  }
  if (B > 1) cluster_sync();  // no CTA leaves while a peer may still read its shared memory
  if (!TRIGGER) kk3_pdl_trigger();
}
