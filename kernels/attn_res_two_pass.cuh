#pragma once
// attn_res's two-pass shapes, STAGE 2 and STAGE 3: a part of kernels/attn_res.cuh, which includes
// it after the mode's constants and the helpers every shape shares (slices_total, softmax_steps,
// write_out); not a source of its own.
//
// Both read every row twice: pass 1 reads them from HBM and reduces all 2 N logit sums of the
// token in one barrier, pass 2 reads them again (from L1 or L2; nothing is held across the
// barrier but the softmax's steps) and forms the mix with the same online steps, so the bits are
// those of the one-pass shapes.
//
// STAGE 3 is STAGE 2 in about half the instructions per token (issue 43). One CTA per token of
// K / GPW warps; a warp takes GPW slices at once, each slice on a group of 32 / GPW lanes, and
// lane g of a group holds the slice's units g, g + 32 / GPW, ... (GPW of them). The contract's
// butterfly over a slice's 32 units pairs u with u ^ 16 first, then ^ 8, ...: the levels above
// 32 / GPW join units of one lane, so the lane adds them itself (no shuffle, no select), and only
// the lower levels cross the group's lanes. Against STAGE 2 (GPW slices of one unit per lane):
// - the logits and the softmax's steps are formed once per token, by warp 0, and handed to the
//   other warps through shared memory (STAGE 2: every warp repeats them);
// - per slice and value, 32 / GPW lanes and log2(32 / GPW) shuffle levels instead of 32 and 5;
// - pass 2's first loads are issued before the softmax's barrier; out_w comes in one trip.
// NC is the number of sources whose rows are loaded at once (0: all); the next batch's loads are
// issued before this batch's sums, so at most two batches of rows are in registers.
// STAGE 4 is STAGE 3 whose pass 2 reads the block rows, their last use, evict-first (ld.global.cs):
// at NB 8 the rows of the tokens in flight outgrow L2 and pass 2 went back to HBM for some
// (H100, common NB 8, T 8192: 177-183 KB read a token against 157 KB with it; c3 of
// results/h100/attn_res-v5-2026-12-05). Where L2 holds them it costs a little (NB 4).
// The space has GPW 4 (7 warps a token, 4 units a lane) and GPW 2 (14 warps, 2 units a lane: about
// 25% more instructions a token, but each warp's path is 30% shorter and twice the warps wait on
// a token's loads, which is what counts at small token counts, where the grid fills few warps).

namespace kk3_ar {

/// STAGE 2: two passes over a token's rows, one token per CTA (B = 1) or cluster, nothing held
/// between them but the mix's weights. Pass 1 reads every row once from HBM and reduces all 2 N
/// sums of the token in one barrier; pass 2 reads the rows again (from L1 or L2; p from registers)
/// and forms the mix with the same online steps, so the bits are those of STAGE 0 and 1. No row
/// lives in registers or shared memory across the barrier: fewer registers, more tokens per SM.
/// The latency chain is kept short: the block rows and out_w are asked into L2 before the wait,
/// every load of pass 1 is issued before its first store (p is written back after the loop), and
/// Q is formed from the weights' registers where it is used.
template <int B, int GPW, int TRIGGER>
__device__ __forceinline__ void two_pass(const kk3_attn_res_params& p) {
  constexpr int k_mine = (k_slices + B - 1) / B;  // slices of the busiest CTA
  constexpr int k_warps = (k_mine + GPW - 1) / GPW;
  constexpr int k_values = 2 * k_sources;  // per slice: each source's sum of squares and dot
  constexpr int k_olds = NB > 0 ? NB : 1;  // register rows of the block sums (at least one)
  constexpr bool k_mix = k_sources > 1;
  static_assert(k_values <= 32, "a token's sums must fit the lanes");
  __shared__ float part[2][k_values][k_mine];  // [0]: the logits' slice partials, [1]: the norm's

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rank = B == 1 ? 0 : static_cast<int>(cluster_rank());
  const int first = first_slice<B>(rank), count = first_slice<B>(rank + 1) - first;
  const int base = first * k_slice;
  const long long t = blockIdx.x / B;  // the grid has one CTA or cluster per token
  auto* const blocks = reinterpret_cast<unsigned short*>(p.blocks);
  auto* const prefix = reinterpret_cast<unsigned short*>(p.prefix);
  const auto* const delta = reinterpret_cast<const unsigned short*>(p.delta);
  const unsigned short* const block_row = blocks + (t * p.block_token_stride + base);
  const unsigned short* const rms_w = reinterpret_cast<const unsigned short*>(p.rms_w) + base;
  const unsigned short* const res_w = reinterpret_cast<const unsigned short*>(p.res_w) + base;
  auto unit = [&](int j) { return unit_offset(warp, k_warps, j, lane); };
  auto mine = [&](int j) { return warp + j * k_warps < count; };
  const bool live = t < p.tokens && count > 0;

  // Before the wait: the older inputs. Thread r < NB asks for block row r in L2, thread NB for
  // out_w (read last); rms_w and res_w come into registers.
  const int r = static_cast<int>(threadIdx.x);
  if (live && r < NB) prefetch_l2(block_row + r * p.block_stride, static_cast<unsigned>(count) * 512u);
  if (live && HAS_OUT_NORM && r == NB)
    prefetch_l2(reinterpret_cast<const unsigned short*>(p.out_w) + base,
                static_cast<unsigned>(count) * 512u);
  uint4 wa[GPW], wb[GPW];
#pragma unroll
  for (int j = 0; j < GPW; ++j) {
    const bool use = k_mix && live && mine(j);
    wa[j] = use ? load_old(rms_w + unit(j)) : make_uint4(0, 0, 0, 0);
    wb[j] = use ? load_old(res_w + unit(j)) : make_uint4(0, 0, 0, 0);
  }
  if (!READ_PREFIX_EARLY) kk3_pdl_wait();
  if (TRIGGER) kk3_pdl_trigger();
  if (t < p.tokens) {
    // Pass 1: p = bf16(prefix + delta); the unit sums, reduced over the lanes slice by slice.
    uint4 pv[GPW];
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      pv[j] = make_uint4(0, 0, 0, 0);
      if (!mine(j)) continue;
      const uint4 old = load_new(prefix + (t * H + base + unit(j)));
      pv[j] = HAS_DELTA ? add_bf16(old, load_new(delta + (t * H + base + unit(j)))) : old;
    }
    if constexpr (k_mix) {  // (one source: nothing to weigh)
#pragma unroll
      for (int j = 0; j < GPW; ++j) {
        if (!mine(j)) continue;
        uint4 olds[k_olds];
#pragma unroll
        for (int n = 0; n < NB; ++n) olds[n] = load_old(block_row + n * p.block_stride + unit(j));
        float q[8];
        q_of(wa[j], wb[j], q);
        float v[k_values];
#pragma unroll
        for (int n = 0; n < k_sources; ++n)
          unit_sums(n < NB ? olds[n] : pv[j], q, v[2 * n], v[2 * n + 1]);
        reduce_slice<k_values, k_mine>(v, &part[0][0][0], lane, warp + j * k_warps);
      }
    }
    if (READ_PREFIX_EARLY) kk3_pdl_wait();
    // p written back (and into block k), now that every load of pass 1 is issued.
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
      if (!mine(j)) continue;
      if (HAS_DELTA) *reinterpret_cast<uint4*>(prefix + (t * H + base + unit(j))) = pv[j];
      if (BLOCK_WRITE)
        *reinterpret_cast<uint4*>(blocks + (t * p.block_token_stride +
                                            p.block_write_idx * p.block_stride + base + unit(j))) =
            pv[j];
    }
    // The logits of all N sources in one barrier, then the steps of the online softmax.
    float rescale[k_sources], weight[k_sources];
    float s = 1.0f;
    if (k_mix) {
      barrier<B>();
      float total[k_values];
      int index;
      slices_total<B, k_values, k_mine>(&part[0][0][0], lane, total, index);
      float top = kk3_ar_math::minus_infinity();
      softmax_steps<k_sources>(total[0], k_sources, lane, p.eps, top, rescale, weight);
#pragma unroll
      for (int n = 1; n < k_sources; ++n) {
        if (rescale[n] != 1.0f) s = __fmul_rn(s, rescale[n]);
        s = __fadd_rn(s, weight[n]);
      }
    }
    // Pass 2: the mix, the block rows read again.
    float acc[GPW][8];
#pragma unroll
    for (int j = 0; j < GPW; ++j) {
#pragma unroll
      for (int x = 0; x < 8; ++x) acc[j][x] = 0.0f;
      if (!mine(j)) continue;
      uint4 olds[k_olds];
      if constexpr (NB > 0) {  // (a loop that cannot run is an error to nvcc -Werror)
#pragma unroll
        for (int n = 0; n < NB; ++n) olds[n] = load_old(block_row + n * p.block_stride + unit(j));
      }
#pragma unroll
      for (int n = 0; n < k_sources; ++n)
        mix_step(acc[j], n < NB ? olds[n] : pv[j], n == 0, k_mix ? rescale[n] : 1.0f,
                 k_mix ? weight[n] : 0.0f);
    }
    write_out<B, GPW, k_mine>(p, t, acc, s, &part[1][0][0], lane, warp, k_warps, count, base);
  }
  if (B > 1) cluster_sync();  // no CTA leaves while a peer may still read its shared memory
  if (!TRIGGER) kk3_pdl_trigger();
}

/// Sums Count values over the lanes of an aligned group of 2 Offset lanes, in the butterfly's
/// pairs (offsets Offset, Offset / 2, ..., 1), as transpose_sum does over a whole warp. A lane
/// ends with the group's totals of values [first, first + have), in v[0 .. have).
template <int Count, int Offset>
__device__ __forceinline__ void group_transpose(float* v, int lane, int& first, int& have) {
  constexpr int half = (Count + 1) / 2;
  const bool upper = lane & Offset;
#pragma unroll
  for (int j = 0; j < half; ++j) {
    const float lo = v[j], hi = j + half < Count ? v[j + half] : 0.0f;
    v[j] = __fadd_rn(upper ? hi : lo, __shfl_xor_sync(0xffffffffu, upper ? lo : hi, Offset));
  }
  if (upper) {
    first += half;
    have = have > half ? have - half : 0;
  } else {
    have = have < half ? have : half;
  }
  if constexpr (Offset > 1) group_transpose<half, Offset / 2>(v, lane, first, have);
}

/// How many values a lane may hold after group_transpose<Count, Offset>.
template <int Count, int Offset>
__host__ __device__ constexpr int group_held() {
  return Offset > 1 ? group_held<(Count + 1) / 2, Offset / 2>() : (Count + 1) / 2;
}

/// The butterfly's levels inside a lane: h[m] is unit first + m * stride of a slice, for m below
/// Units (a power of two), so level u ^ (stride * o) pairs h[m] with h[m + o], largest o first.
/// Returns the sum of the lane's units.
template <int Units>
__device__ __forceinline__ float fold_units(float (&h)[Units]) {
#pragma unroll
  for (int o = Units / 2; o >= 1; o /= 2) {
#pragma unroll
    for (int m = 0; m < o; ++m) h[m] = __fadd_rn(h[m], h[m + o]);
  }
  return h[0];
}

/// STAGE 3 (see the top): one token per CTA of K / GPW warps, GPW units of a slice per lane, the
/// softmax once per token, rows loaded NC sources at a time.
template <int GPW, int NC, int TRIGGER, bool LAST_USE>
__device__ __forceinline__ void grouped_two_pass(const kk3_attn_res_params& p) {
  namespace am = kk3_ar_math;
  constexpr int k_units = GPW;       // units of one slice per lane
  constexpr int k_lanes = 32 / GPW;  // lanes per slice
  constexpr int k_values = 2 * k_sources;
  constexpr bool k_mix = k_sources > 1;
  constexpr int k_batch = NC == 0 || NC > k_sources ? k_sources : NC;  // sources loaded at once
  constexpr int k_batches = (k_sources + k_batch - 1) / k_batch;
  static_assert(GPW >= 2 && 32 % GPW == 0, "STAGE 3: GPW is 2, 4, 8, 16 or 32");
  static_assert(k_values <= 32, "a token's sums must fit the lanes");
  __shared__ float part[k_values][k_slices];  // the logits' slice partials
  __shared__ float norm_part[k_slices];       // the norm's slice partials
  __shared__ float2 steps[k_sources];         // per source: the online step's (rescale, weight)
  __shared__ float weight_sum;                // s

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int slice = warp * GPW + lane / k_lanes;
  const int first_unit = lane % k_lanes;
  constexpr bool k_cover = k_slices % GPW == 0;
  const bool mine = k_cover || slice < k_slices;  // (the grid's warps cover the slices exactly)
  const long long t = blockIdx.x;  // the grid has one CTA per token
  const bool live = t < p.tokens;
  auto* const blocks = reinterpret_cast<unsigned short*>(p.blocks);
  auto* const prefix = reinterpret_cast<unsigned short*>(p.prefix) + t * H;
  const auto* const delta = reinterpret_cast<const unsigned short*>(p.delta) + t * H;
  const unsigned short* const block_row = blocks + t * p.block_token_stride;
  // Unit m of this lane: its first element within a row.
  auto at = [&](int m) { return slice * k_slice + 8 * (first_unit + k_lanes * m); };
  // kind: 0 written by the previous kernel, 1 older, 2 older and read for the last time (STAGE 4's
  // block rows in pass 2, ld.global.cs: evict-first in L2, so the rows of tokens still in pass 1
  // stay there for their own pass 2).
  auto load_row = [&](const unsigned short* row, int kind, uint4 (&d)[k_units]) {
#pragma unroll
    for (int m = 0; m < k_units; ++m) {
      const unsigned short* const at_m = row + at(m);
      d[m] = !mine        ? make_uint4(0, 0, 0, 0)
             : kind == 2 ? __ldcs(reinterpret_cast<const uint4*>(at_m))
             : kind == 1 ? load_old(at_m)
                         : load_new(at_m);
    }
  };

  // Before the wait: the older inputs. Thread n < NB asks for block row n in L2, thread NB for
  // out_w; Q comes into registers.
  const int r = static_cast<int>(threadIdx.x);
  if (live && r < NB) prefetch_l2(block_row + r * p.block_stride, k_slices * 512u);
  if (live && HAS_OUT_NORM && r == NB)
    prefetch_l2(reinterpret_cast<const unsigned short*>(p.out_w), k_slices * 512u);
  float q[k_units][8];
  if constexpr (k_mix) {
    uint4 wa[k_units], wb[k_units];
    load_row(reinterpret_cast<const unsigned short*>(p.rms_w), true, wa);
    load_row(reinterpret_cast<const unsigned short*>(p.res_w), true, wb);
#pragma unroll
    for (int m = 0; m < k_units; ++m) q_of(wa[m], wb[m], q[m]);
  }

  // Pass 1, in batches of k_batch sources: the rows of batch b + 1 are asked for before batch
  // b's sums. p = bf16(prefix + delta) is the last source; prefix and delta come after the wait.
  uint4 rows[k_batch][k_units], next[k_batch][k_units];  // this batch's rows, the next batch's
  auto copy_rows = [](const uint4(&from)[k_batch][k_units], uint4(&to)[k_batch][k_units]) {
#pragma unroll
    for (int i = 0; i < k_batch; ++i) {
#pragma unroll
      for (int m = 0; m < k_units; ++m) to[i][m] = from[i][m];
    }
  };
  uint4 pre[k_units], dlt[k_units];
  constexpr int k_p_batch = NB / k_batch;  // the batch that holds p
  auto load_news = [&]() {
    load_row(prefix, false, pre);
    if (HAS_DELTA) load_row(delta, false, dlt);
  };
  auto load_blocks = [&](int b, uint4(&d)[k_batch][k_units]) {
#pragma unroll
    for (int i = 0; i < k_batch; ++i) {
      const int n = b * k_batch + i;
      if (n < NB) load_row(block_row + n * p.block_stride, true, d[i]);
    }
  };
  if (READ_PREFIX_EARLY) load_news();  // test-only: the hazard the verifier must flag
  if (live) load_blocks(0, rows);
  if (!READ_PREFIX_EARLY) kk3_pdl_wait();
  if (TRIGGER) kk3_pdl_trigger();
  if (!live) {
    if (!TRIGGER) kk3_pdl_trigger();
    return;
  }
  if (k_p_batch == 0 && !READ_PREFIX_EARLY) load_news();
  uint4 pv[k_units];  // p
  auto form_p = [&]() {
#pragma unroll
    for (int m = 0; m < k_units; ++m) pv[m] = HAS_DELTA ? add_bf16(pre[m], dlt[m]) : pre[m];
  };
  if constexpr (k_mix) {
#pragma unroll
    for (int b = 0; b < k_batches; ++b) {
      if (b + 1 < k_batches) {
        load_blocks(b + 1, next);
        if (b + 1 == k_p_batch && !READ_PREFIX_EARLY) load_news();
      }
      const int n0 = b * k_batch;
      constexpr int k_count = 2 * k_batch;
      float v[k_count];
#pragma unroll
      for (int i = 0; i < k_batch; ++i) {
        const int n = n0 + i;
        v[2 * i] = v[2 * i + 1] = 0.0f;
        if (n >= k_sources) continue;
        if (n == NB) form_p();
        float ss[k_units], dot[k_units];
#pragma unroll
        for (int m = 0; m < k_units; ++m)
          unit_sums(n < NB ? rows[i][m] : pv[m], q[m], ss[m], dot[m]);
        v[2 * i] = fold_units(ss);
        v[2 * i + 1] = fold_units(dot);
      }
      int first = 0, have = k_count;
      group_transpose<k_count, k_lanes / 2>(v, lane, first, have);
#pragma unroll
      for (int i = 0; i < group_held<k_count, k_lanes / 2>(); ++i) {
        const int value = 2 * n0 + first + i;
        if (mine && i < have && value < k_values) part[value][slice] = v[i];
      }
      copy_rows(next, rows);
    }
  } else {
    form_p();
  }
  if (READ_PREFIX_EARLY) kk3_pdl_wait();
  // p written back (and into block k), now that every load of pass 1 is issued.
#pragma unroll
  for (int m = 0; m < k_units; ++m) {
    if (!mine) continue;
    if (HAS_DELTA) *reinterpret_cast<uint4*>(prefix + at(m)) = pv[m];
    if (BLOCK_WRITE)
      *reinterpret_cast<uint4*>(blocks + t * p.block_token_stride +
                                p.block_write_idx * p.block_stride + at(m)) = pv[m];
  }

  // Pass 2's rows in the same batches: the blocks again (L1 or L2), then p, read back from prefix
  // (this thread wrote it, or the previous kernel did); the first batch is asked for before the
  // softmax's barrier.
  auto load_mix_batch = [&](int b, uint4(&d)[k_batch][k_units]) {
#pragma unroll
    for (int i = 0; i < k_batch; ++i) {
      const int n = b * k_batch + i;
      if (n <= NB)
        load_row(n < NB ? block_row + n * p.block_stride : prefix, n < NB ? (LAST_USE ? 2 : 1) : 0, d[i]);
    }
  };
  float s = 1.0f;
  if constexpr (k_mix) {
    __syncthreads();
    load_mix_batch(0, rows);
    if (warp == 0) {  // the logits of all N sources and the steps of the online softmax, once
      float total[k_values];
      int index;
      slices_total<1, k_values, k_slices>(&part[0][0], lane, total, index);
      float top = am::minus_infinity(), rescale[k_sources], weight[k_sources];
      softmax_steps<k_sources>(total[0], k_sources, lane, p.eps, top, rescale, weight);
#pragma unroll
      for (int n = 1; n < k_sources; ++n) {
        if (rescale[n] != 1.0f) s = __fmul_rn(s, rescale[n]);
        s = __fadd_rn(s, weight[n]);
      }
      if (lane < k_sources) {
        float2 mine_step = make_float2(rescale[0], weight[0]);
#pragma unroll
        for (int n = 1; n < k_sources; ++n) {
          if (lane == n) mine_step = make_float2(rescale[n], weight[n]);
        }
        steps[lane] = mine_step;
      }
      if (lane == 0) weight_sum = s;
    }
    __syncthreads();
    s = weight_sum;
  } else {
    load_mix_batch(0, rows);
  }

  // Pass 2: the mix, source by source in order.
  float acc[k_units][8];
#pragma unroll
  for (int b = 0; b < k_batches; ++b) {
    if (b + 1 < k_batches) load_mix_batch(b + 1, next);
#pragma unroll
    for (int i = 0; i < k_batch; ++i) {
      const int n = b * k_batch + i;
      if (n >= k_sources) continue;
      const float2 step = k_mix ? steps[n] : make_float2(1.0f, 0.0f);
#pragma unroll
      for (int m = 0; m < k_units; ++m)
        mix_step(acc[m], rows[i][m], n == 0, step.x, step.y);
    }
    copy_rows(next, rows);
  }

  // The output: normalised by the norm's scale (the sum of acc^2 in the contract's tree: the
  // units, the slice's butterfly, the slices' total), or divided by s.
  float scale;
  uint4 w_out[k_units];
  if (HAS_OUT_NORM) {
    load_row(reinterpret_cast<const unsigned short*>(p.out_w), true, w_out);  // one trip, in L2
    float sq[k_units];
#pragma unroll
    for (int m = 0; m < k_units; ++m) {
      sq[m] = 0.0f;
#pragma unroll
      for (int x = 0; x < 8; ++x) sq[m] = __fmaf_rn(acc[m][x], acc[m][x], sq[m]);
    }
    float v = fold_units(sq);
#pragma unroll
    for (int o = k_lanes / 2; o >= 1; o /= 2) v = __fadd_rn(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (mine && first_unit == 0) norm_part[slice] = v;
    __syncthreads();
    float total = 0.0f;
    for (int k = lane; k < k_slices; k += 32) total = __fadd_rn(total, norm_part[k]);
    scale = am::norm_scale(warp_sum(total), s, k_hidden, p.out_eps);
  } else {
    scale = am::div(1.0f, s);
  }
  auto* const out = reinterpret_cast<unsigned short*>(p.out) + t * H;
#pragma unroll
  for (int m = 0; m < k_units; ++m) {
    if (!mine) continue;
    unsigned packed[4];
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      float lo = __fmul_rn(acc[m][2 * x], scale), hi = __fmul_rn(acc[m][2 * x + 1], scale);
      if (HAS_OUT_NORM) {
        lo = __fmul_rn(lo, element(w_out[m], 2 * x));
        hi = __fmul_rn(hi, element(w_out[m], 2 * x + 1));
      }
      packed[x] = pack_bf16(lo, hi);
    }
    __stcs(reinterpret_cast<uint4*>(out + at(m)), make_uint4(packed[0], packed[1], packed[2], packed[3]));
  }
  if (!TRIGGER) kk3_pdl_trigger();
}

}  // namespace kk3_ar
