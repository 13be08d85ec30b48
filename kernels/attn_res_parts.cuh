#pragma once
// The pieces of kernels/attn_res.cuh that do not depend on its mode (its macros): bf16 packing and
// the prefix update, the butterfly sums over a warp's lanes in the contract's order (the tree of
// attn_res.cuh's header: units u and u ^ 16 first, then ^ 8, ... ^ 1), a unit's sums, the row loads,
// Q and one step of the mix. NVRTC and nvcc; the mode-dependent rest stays in attn_res.cuh.
#include "attn_res_params.h"

namespace kk3_ar {

constexpr int k_slice = 256;  // elements per slice: 32 units of 8

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

/// One slice's butterfly of Values sums over the lanes (reduce_slices for a single slice, the
/// warp's local slice m): the lane left holding value i stores it to part[i * Stride + m].
template <int Values, int Stride>
__device__ __forceinline__ void reduce_slice(float (&v)[Values], float* part, int lane, int m) {
  int index;
  transpose_sum<Values>(v, lane, index);
  if (index >= 0) part[index * Stride + m] = v[0];
}

/// The offset, within the CTA's part of a row, of this lane's unit in its warp's slice j (a warp
/// takes its CTA's slices warp, warp + warps, ...).
__device__ __forceinline__ int unit_offset(int warp, int warps, int j, int lane) {
  return (warp + j * warps) * k_slice + 8 * lane;
}

/// Q = rms_w * res_w (fp32, exact) of one unit, from its 8 packed elements of each weight.
__device__ __forceinline__ void q_of(const uint4& rms_w, const uint4& res_w, float (&q)[8]) {
#pragma unroll
  for (int x = 0; x < 8; ++x) q[x] = __fmul_rn(element(rms_w, x), element(res_w, x));
}

/// Q = rms_w * res_w (fp32, exact) of this thread's units.
template <int GPW>
__device__ __forceinline__ void load_q(const kk3_attn_res_params& p, float (&q)[GPW][8], int lane,
                                       int warp, int warps, int count, int base) {
  const auto* rms_w = reinterpret_cast<const unsigned short*>(p.rms_w) + base;
  const auto* res_w = reinterpret_cast<const unsigned short*>(p.res_w) + base;
#pragma unroll
  for (int j = 0; j < GPW; ++j) {
    const bool mine = warp + j * warps < count;
    const int u = unit_offset(warp, warps, j, lane);
    const uint4 a = mine ? load_old(rms_w + u) : make_uint4(0, 0, 0, 0);
    const uint4 b = mine ? load_old(res_w + u) : make_uint4(0, 0, 0, 0);
    q_of(a, b, q[j]);
  }
}

/// One step of the mix, per element of a unit: acc = acc * rescale when the maximum moved (the
/// first source sets acc = V instead), then acc = fma(weight, V, acc).
__device__ __forceinline__ void mix_step(float (&acc)[8], const uint4& v, bool first,
                                         float rescale, float weight) {
  if (first) {
#pragma unroll
    for (int x = 0; x < 8; ++x) acc[x] = element(v, x);
    return;
  }
  if (rescale != 1.0f) {
#pragma unroll
    for (int x = 0; x < 8; ++x) acc[x] = __fmul_rn(acc[x], rescale);
  }
#pragma unroll
  for (int x = 0; x < 8; ++x) acc[x] = __fmaf_rn(weight, element(v, x), acc[x]);
}

}  // namespace kk3_ar
