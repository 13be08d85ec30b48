#pragma once
// mla_decode_epilogue: the fused MLA decode q-concat + KV-cache insert (SPEC 1.1).
//
// Work is split into rows of 576 elements (72 chunks of 8): first the T cache rows
// (concat(kv_c[t], k_pe[t]) into kv_cache[slot_mapping[t]]), then the T*H q rows
// (concat(ql_nope[t,h], q_pe[t,h]) into mqa_q[t,h]). SPLIT warps share a row; a warp takes
// ROWS_PER_WARP rows. Chunks 64..71 are the rope part; with rope each pair (x, y) becomes
// (x*cos - y*sin, x*sin + y*cos) in fp32, with explicit round-to-nearest operations (no FMA
// contraction), so the CPU reference reproduces it bit for bit.
//
// PDL: ql_nope and q_pe come from the kernel launched just before; nothing reads them before
// griddepcontrol.wait (the test-only KK3_MLA_DECODE_EPILOGUE_READ_Q_EARLY=1 does, to prove the
// hazard check works). Every other input is older and may be read early (EARLY_READS) or, for the
// cache rows, without waiting at all (CACHE_WAIT=0).
//
// Compile-time: MODE_FP8, MODE_ROPE (the mode, as the macros KK3_MLA_DECODE_EPILOGUE_MODE_FP8 and
// KK3_MLA_DECODE_EPILOGUE_MODE_ROPE, each required), and the knobs below. No host headers.
#include "common/fault_point.cuh"
#include "common/pdl.cuh"
#include "mla_decode_epilogue_params.h"

// The mode's macros carry the family's prefix (kk3tune defines them, a downstream build copies
// them from the dispatch header's mode_defines()); a missing one is an error, never a default.
#ifndef KK3_MLA_DECODE_EPILOGUE_MODE_FP8
#error "mla_decode_epilogue.cuh: KK3_MLA_DECODE_EPILOGUE_MODE_FP8 is not defined (mode_defines())"
#endif
#ifndef KK3_MLA_DECODE_EPILOGUE_MODE_ROPE
#error "mla_decode_epilogue.cuh: KK3_MLA_DECODE_EPILOGUE_MODE_ROPE is not defined (mode_defines())"
#endif
#ifndef KK3_MLA_DECODE_EPILOGUE_READ_Q_EARLY
// test-only: read the upstream-produced q before the wait (a hazard)
#define KK3_MLA_DECODE_EPILOGUE_READ_Q_EARLY 0
#endif

namespace kk3_mla {

// The mode as constants of this namespace: the kernel's names for them, no macro of their own.
constexpr bool MODE_FP8 = KK3_MLA_DECODE_EPILOGUE_MODE_FP8 != 0;
constexpr bool MODE_ROPE = KK3_MLA_DECODE_EPILOGUE_MODE_ROPE != 0;
constexpr bool READ_Q_EARLY = KK3_MLA_DECODE_EPILOGUE_READ_Q_EARLY != 0;

constexpr int k_latent = 512;
constexpr int k_rope = 64;
constexpr int k_entry = 576;
constexpr int k_chunks = k_entry / 8;        // 72 chunks of 8 elements (16 bytes of bf16)
constexpr int k_nope_chunks = k_latent / 8;  // 64

__device__ __forceinline__ float bf16_to_f32(unsigned short b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }

__device__ __forceinline__ unsigned short f32_to_bf16_rn(float f) {
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}

/// Two floats to two e4m3 (saturating, round to nearest even); `lo` lands in the low byte.
__device__ __forceinline__ unsigned short f32x2_to_e4m3x2(float lo, float hi) {
  unsigned short r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(hi), "f"(lo));
  return r;
}

/// The 8 output values of one chunk, in fp32 (exact for copied bf16 values).
struct chunk8 {
  float v[8];
};

__device__ __forceinline__ chunk8 unpack(uint4 raw) {
  chunk8 c;
  const unsigned w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    c.v[2 * i] = bf16_to_f32(static_cast<unsigned short>(w[i] & 0xffffu));
    c.v[2 * i + 1] = bf16_to_f32(static_cast<unsigned short>(w[i] >> 16));
  }
  return c;
}

/// Rotates the 4 pairs of a rope chunk; `first_pair` is the pair index of v[0], v[1].
__device__ __forceinline__ void rope(chunk8& c, const float* __restrict__ cs_row, int first_pair) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float cos_v = cs_row[first_pair + j];
    const float sin_v = cs_row[32 + first_pair + j];
    const float x = c.v[2 * j], y = c.v[2 * j + 1];
    c.v[2 * j] = __fsub_rn(__fmul_rn(x, cos_v), __fmul_rn(y, sin_v));
    c.v[2 * j + 1] = __fadd_rn(__fmul_rn(x, sin_v), __fmul_rn(y, cos_v));
  }
}

/// Stores one chunk: 16 bytes of bf16, or 8 bytes of e4m3 scaled by `scale_inv`.
__device__ __forceinline__ void store(void* row_base, int chunk, uint4 raw, const chunk8& c, bool rotated, float scale_inv) {
#if KK3_MLA_DECODE_EPILOGUE_MODE_FP8
  uint2 out;
  unsigned short p[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    p[i] = f32x2_to_e4m3x2(__fmul_rn(c.v[2 * i], scale_inv), __fmul_rn(c.v[2 * i + 1], scale_inv));
  }
  out.x = p[0] | (static_cast<unsigned>(p[1]) << 16);
  out.y = p[2] | (static_cast<unsigned>(p[3]) << 16);
  reinterpret_cast<uint2*>(row_base)[chunk] = out;
#else
  (void)scale_inv;
  if (rotated) {
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      w[i] = f32_to_bf16_rn(c.v[2 * i]) | (static_cast<unsigned>(f32_to_bf16_rn(c.v[2 * i + 1])) << 16);
    }
    raw = make_uint4(w[0], w[1], w[2], w[3]);
  }
  reinterpret_cast<uint4*>(row_base)[chunk] = raw;  // without rope: an exact bit copy
#endif
}

/// Where one row comes from and goes to.
struct row_job {
  const uint4* nope = nullptr;  // 64 chunks
  const uint4* pe = nullptr;    // 8 chunks
  void* out = nullptr;          // null: nothing to write (a negative slot, or no row)
  const float* cs_row = nullptr;
  float scale_inv = 1.0f;
  bool is_q = false;
};

__device__ __forceinline__ row_job locate(const kk3_mla_params& p, long long row) {
  row_job j;
  const long long T = p.tokens;
  const long long H = p.heads;
  long long t;
  const int out_bytes = MODE_FP8 ? 1 : 2;
  if (row < T) {  // cache row
    t = row;
    const long long slot = reinterpret_cast<const long long*>(p.slot_mapping)[t];
    if (slot < 0) return j;
    j.nope = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.kv_c) + t * k_latent);
    j.pe = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.k_pe) + t * p.kpe_row_stride);
    j.out = reinterpret_cast<char*>(p.kv_cache) + slot * k_entry * out_bytes;
#if KK3_MLA_DECODE_EPILOGUE_MODE_FP8
    j.scale_inv = *reinterpret_cast<const float*>(p.cache_scale_inv);
#endif
  } else if (row < T + T * H) {  // q row
    const long long q = row - T;
    t = q / H;
    const long long h = q % H;
    j.is_q = true;
    j.nope = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.ql_nope) + t * p.ql_token_stride +
                                            h * p.ql_head_stride);
    j.pe = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned short*>(p.q_pe) + t * p.qpe_token_stride +
                                          h * p.qpe_head_stride);
    j.out = reinterpret_cast<char*>(p.mqa_q) + q * k_entry * out_bytes;
#if KK3_MLA_DECODE_EPILOGUE_MODE_FP8
    j.scale_inv = *reinterpret_cast<const float*>(p.q_scale_inv);
#endif
  } else {
    return j;
  }
#if KK3_MLA_DECODE_EPILOGUE_MODE_ROPE
  const long long pos = reinterpret_cast<const long long*>(p.positions)[t];
  j.cs_row = reinterpret_cast<const float*>(p.cos_sin_cache) + pos * 64;
#endif
  return j;
}

}  // namespace kk3_mla

/// SPLIT: warps per row (1..4). UNROLL: unroll of the per-lane chunk loop. EARLY_READS: read
/// the older inputs (slot, position, scale, and for cache rows the data) before the wait.
/// CACHE_WAIT: whether cache rows wait at all. ROWS_PER_WARP: rows a warp (group) handles.
/// TRIGGER_EARLY: launch_dependents right at the start instead of at the end (always correct:
/// the dependent's own griddepcontrol.wait still waits for this grid). THREADS: per block.
template <int SPLIT, int UNROLL, int EARLY_READS, int CACHE_WAIT, int ROWS_PER_WARP, int TRIGGER_EARLY, int THREADS>
__global__ void __launch_bounds__(THREADS) mla_decode_epilogue(const kk3_mla_params p) {
  using namespace kk3_mla;
  KK3_FAULT_POINT();  // empty unless a test injects a fault (common/fault_injection.cuh)
  static_assert(SPLIT >= 1 && SPLIT <= 4, "SPLIT is 1..4 warps per row");
  constexpr int k_chunks_per_part = (k_chunks + SPLIT - 1) / SPLIT;
  constexpr int k_per_lane = (k_chunks_per_part + 31) / 32;
  if (TRIGGER_EARLY) kk3_pdl_trigger();

  const int lane = threadIdx.x & 31;
  const long long warp = static_cast<long long>(blockIdx.x) * (THREADS / 32) + (threadIdx.x >> 5);
  const long long group = warp / SPLIT;
  const int part = static_cast<int>(warp % SPLIT);
  const int first_chunk = part * k_chunks_per_part;
  const int end_chunk = first_chunk + k_chunks_per_part < k_chunks ? first_chunk + k_chunks_per_part : k_chunks;
  bool waited = false;

#pragma unroll 1
  for (int r = 0; r < ROWS_PER_WARP; ++r) {
    const long long row = group * ROWS_PER_WARP + r;
    const bool cache_row = row < p.tokens;
    const bool must_wait = !cache_row || CACHE_WAIT;
    // Older inputs: slot, position, scale; read before the wait with EARLY_READS.
    if (must_wait && !EARLY_READS && !READ_Q_EARLY && !waited) {
      kk3_pdl_wait();
      waited = true;
    }
    const row_job job = locate(p, row);
    if (!job.out) continue;

    uint4 raw[k_per_lane];
    const bool early_data = cache_row ? (EARLY_READS || !CACHE_WAIT) : READ_Q_EARLY;
    if (early_data) {
#pragma unroll
      for (int k = 0; k < k_per_lane; ++k) {
        const int c = first_chunk + lane + 32 * k;
        if (c < end_chunk) raw[k] = c < k_nope_chunks ? job.nope[c] : job.pe[c - k_nope_chunks];
      }
    }
    if (must_wait && !waited) {
      kk3_pdl_wait();
      waited = true;
    }
#pragma unroll UNROLL
    for (int k = 0; k < k_per_lane; ++k) {
      const int c = first_chunk + lane + 32 * k;
      if (c >= end_chunk) continue;
      if (!early_data) raw[k] = c < k_nope_chunks ? job.nope[c] : job.pe[c - k_nope_chunks];
      chunk8 v = unpack(raw[k]);
      const bool rotated = MODE_ROPE && c >= k_nope_chunks;
#if KK3_MLA_DECODE_EPILOGUE_MODE_ROPE
      if (rotated) rope(v, job.cs_row, (c - k_nope_chunks) * 4);
#endif
      store(job.out, c, raw[k], v, rotated, job.scale_inv);
    }
  }
  if (!TRIGGER_EARLY) kk3_pdl_trigger();
}
