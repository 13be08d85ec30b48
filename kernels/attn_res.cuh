#pragma once
// attn_res: Block Attention Residuals (SPEC 1.2), in fp32 at the bandwidth floor, in two shapes.
// One pass (STAGE 0, 1): one cluster of B CTAs per token (H split into B contiguous ranges of
// slices); every source row is read from HBM once, into registers or into a ring of shared-memory
// rows, and the mix is formed chunk by chunk, so no row is read twice. Two passes (STAGE 2): pass 1
// reads the rows and reduces all the logits' sums in one barrier, pass 2 reads the rows again (from
// L1 or L2) and forms the mix; nothing is held across the barrier, so a thread needs far fewer
// registers and an SM runs more tokens at once (the per-token chain of loads, reductions and
// barriers, not HBM, limits the one-pass shape from T = 256 on).
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
//   logits are reduced at once, and STAGE 2 only when the rows are read for the mix; the steps
//   stay per source, in order.
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
//           (STAGE 3, 4: a warp takes GPW slices at once, GPW units of one slice per lane.)
//   NC      sources per chunk: the logits of NC sources are reduced at one barrier (0: all N).
//           (STAGE 3, 4: sources whose rows are loaded at once; every logit at one barrier.)
//   STAGE   0: rows are loaded into registers; 1: bulk asynchronous copies of the CTA's part of
//           each row into a ring of shared-memory rows, completing on one mbarrier per row;
//           2: two passes, one token per CTA or cluster (NC = 0, TPC = 1); 3: two passes, one
//           token per CTA, the softmax once per token (B = 1; kernels/attn_res_two_pass.cuh);
//           4: STAGE 3 with pass 2's block rows read evict-first (their last use).
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
#include "attn_res_parts.cuh"
#include "common/fault_point.cuh"
#include "common/hopper.cuh"
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

using namespace kk3_hopper;

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


/// The online softmax's steps of `here` sources (source i of them on lane i), from each lane's
/// share of their totals (`held`: what slices_total<B, 2 Count> leaves in total[0]): a source's
/// logit, the running maximum before it (`top` before the first, then a prefix maximum over the
/// lanes), then its step (attn_res_math.h). Every lane gets every source's rescale and weight;
/// `top` becomes the maximum of it and the sources' logits.
template <int Count>
__device__ __forceinline__ void softmax_steps(float held, int here, int lane, float eps, float& top,
                                              float (&rescale)[Count], float (&weight)[Count]) {
  namespace am = kk3_ar_math;
  const int i = lane < here ? lane : here - 1;
  const float ss = __shfl_sync(0xffffffffu, held, holder_lane<2 * Count>(2 * i));
  const float dot = __shfl_sync(0xffffffffu, held, holder_lane<2 * Count>(2 * i + 1));
  const float l = am::logit(ss, dot, k_hidden, eps);
  float upto = l;  // max of the logits 0..i
#pragma unroll
  for (int d = 1; d < Count; d *= 2) {
    const float o = __shfl_up_sync(0xffffffffu, upto, d);
    if (lane >= d) upto = fmaxf(upto, o);
  }
  float before = __shfl_up_sync(0xffffffffu, upto, 1);
  before = lane == 0 ? top : fmaxf(top, before);
  const am::softmax_step step = am::next_step(before, l);
#pragma unroll
  for (int k = 0; k < Count; ++k) {
    rescale[k] = __shfl_sync(0xffffffffu, step.rescale, k);
    weight[k] = __shfl_sync(0xffffffffu, step.weight, k);
  }
  top = __shfl_sync(0xffffffffu, step.top, here - 1);
}

/// The output of token t from the mix: normalised by the norm's scale (its sum of acc^2 over the
/// token first, through `part`, a free buffer of Mine floats, and one barrier), or divided by s.
template <int B, int GPW, int Mine>
__device__ __forceinline__ void write_out(const kk3_attn_res_params& p, long long t,
                                          float (&acc)[GPW][8], float s, float* part, int lane,
                                          int warp, int warps, int count, int base) {
  namespace am = kk3_ar_math;
  float scale;
  if (HAS_OUT_NORM) {
    float sq[GPW][1];
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      sq[j][0] = 0.0f;
#pragma unroll
      for (int x = 0; x < 8; ++x) sq[j][0] = __fmaf_rn(acc[j][x], acc[j][x], sq[j][0]);
    }
    reduce_slices<1, GPW, Mine>(sq, part, lane, warp, warps, count);
    barrier<B>();
    float total[1];
    int index;
    slices_total<B, 1, Mine>(part, lane, total, index);
    scale = am::norm_scale(__shfl_sync(0xffffffffu, total[0], holder_lane<1>(0)), s, k_hidden,
                           p.out_eps);
  } else {
    scale = am::div(1.0f, s);
  }
  const auto* out_w = reinterpret_cast<const unsigned short*>(p.out_w) + base;
  auto* out = reinterpret_cast<unsigned short*>(p.out) + (t * H + base);
#pragma unroll
  for (int j = 0; j < GPW; ++j) {
    if (warp + j * warps >= count) continue;
    const int u = unit_offset(warp, warps, j, lane);
    unsigned packed[4];
    if (HAS_OUT_NORM) {
      const uint4 w = load_old(out_w + u);
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        packed[x] = pack_bf16(__fmul_rn(__fmul_rn(acc[j][2 * x], scale), element(w, 2 * x)),
                              __fmul_rn(__fmul_rn(acc[j][2 * x + 1], scale), element(w, 2 * x + 1)));
      }
    } else {
#pragma unroll
      for (int x = 0; x < 4; ++x)
        packed[x] = pack_bf16(__fmul_rn(acc[j][2 * x], scale), __fmul_rn(acc[j][2 * x + 1], scale));
    }
    __stcs(reinterpret_cast<uint4*>(out + u), make_uint4(packed[0], packed[1], packed[2], packed[3]));
  }
}

/// STAGE 0 and 1: every row is read once and the mix is formed chunk by chunk (see the top).
template <int B, int GPW, int NC, int STAGE, int UNROLL, int STAGES, int TPC, int TRIGGER>
__device__ __forceinline__ void one_pass(const kk3_attn_res_params& p) {
  namespace am = kk3_ar_math;
  constexpr int k_mine = (k_slices + B - 1) / B;  // slices of the busiest CTA
  constexpr int k_warps = (k_mine + GPW - 1) / GPW;
  constexpr int k_nc = NC == 0 || NC > k_sources ? k_sources : NC;  // sources per chunk
  constexpr int k_chunks = (k_sources + k_nc - 1) / k_nc;
  constexpr int k_values = 2 * k_nc;  // per slice and chunk: each source's sum of squares and dot
  constexpr int k_ahead = STAGE ? 1 : (UNROLL < k_chunks ? UNROLL : k_chunks);  // register buffers
  constexpr int k_ring = STAGES * k_nc + HAS_DELTA;
  constexpr int k_slots = !STAGE ? 1 : NC == 0 || k_ring > k_rows ? k_rows : k_ring;  // ring rows
  constexpr bool k_mix = k_sources > 1;  // with one source there is nothing to weigh
  static_assert(STAGE || STAGES == 1, "the ring's depth needs STAGE = 1");
  static_assert(!STAGE || UNROLL == 1, "register buffers are STAGE = 0's");
  static_assert(STAGE || TPC == 1, "tokens per cluster need the ring (STAGE = 1)");
  static_assert(k_values <= 32, "a chunk's sums must fit the lanes");
  // Per barrier parity: this CTA's slice partials of a chunk (the norm uses value 0).
  __shared__ float part[2][k_values][k_mine];
  __shared__ unsigned long long full[k_slots];  // STAGE: one mbarrier per ring row
  extern __shared__ uint4 ring[];               // STAGE: [slot][local slice][32 units]

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
  auto unit = [&](int j) { return unit_offset(warp, k_warps, j, lane); };
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
  if (k_mix) load_q<GPW>(p, q, lane, warp, k_warps, count, base);
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
        // Lane i < here takes source n0 + i: its logit and its step of the online softmax.
        softmax_steps<k_nc>(total[0], here, lane, p.eps, top, rescale, weight);
      }

      // The online mix, source by source.
#pragma unroll
      for (int i = 0; i < k_nc; ++i) {
        if (i >= here) break;
        const bool first_source = c == 0 && i == 0;
#pragma unroll
        for (int j = 0; j < GPW; ++j)
          mix_step(acc[j], src[i][j], first_source, rescale[i], weight[i]);
        if (first_source) continue;
        if (rescale[i] != 1.0f) s = __fmul_rn(s, rescale[i]);
        s = __fadd_rn(s, weight[i]);
      }
      if (READ_PREFIX_EARLY && token == 0 && c == 0) kk3_pdl_wait();
    }

    write_out<B, GPW, k_mine>(p, t, acc, s, &part[barriers & 1][0][0], lane, warp, k_warps, count,
                              base);
    if (HAS_OUT_NORM) ++barriers;
  }
  if (B > 1) cluster_sync();  // no CTA leaves while a peer may still read its shared memory
  if (!TRIGGER) kk3_pdl_trigger();
}

}  // namespace kk3_ar

#include "attn_res_two_pass.cuh"  // STAGE 2, 3 and 4

/// The knobs are described at the top of this file.
template <int B, int GPW, int NC, int STAGE, int UNROLL, int STAGES, int TPC, int TRIGGER>
__global__ void __launch_bounds__(kk3_ar::threads_of(B, GPW))
    attn_res(const kk3_attn_res_params p) {
  static_assert(B >= 1 && B <= 16 && GPW >= 1 && UNROLL >= 1 && UNROLL <= 2 && STAGES >= 1 &&
                    TPC >= 1 && STAGE >= 0 && STAGE <= 4,
                "knob out of range");
  static_assert(STAGE != 2 || (NC == 0 && UNROLL == 1 && STAGES == 1 && TPC == 1),
                "STAGE = 2 takes all sources at once, one token per CTA or cluster");
  static_assert(STAGE < 3 || (B == 1 && UNROLL == 1 && STAGES == 1 && TPC == 1),
                "STAGE = 3 and 4 take one token per CTA");
  KK3_FAULT_POINT();  // empty unless a test injects a fault (common/fault_injection.cuh)
  if (blockDim.x != kk3_ar::threads_of(B, GPW)) asm volatile("trap;");  // the host disagrees
  if constexpr (STAGE >= 3) {
    kk3_ar::grouped_two_pass<GPW, NC, TRIGGER, STAGE == 4>(p);
  } else if constexpr (STAGE == 2) {
    kk3_ar::two_pass<B, GPW, TRIGGER>(p);
  } else {
    kk3_ar::one_pass<B, GPW, NC, STAGE, UNROLL, STAGES, TPC, TRIGGER>(p);
  }
}
