#pragma once
// The per-token scalar arithmetic of kernels/attn_res.cuh (the logits, the softmax's weights
// and rescale factors, the output scale), written once for the kernel and for host code that
// emulates it bit for bit (bench/attn_res_precision.cpp). Every operation is a correctly
// rounded fp32 operation (IEEE multiply, add, fused multiply-add, division, square root and
// round-to-integer), so the device and a host compiled without contraction (-ffp-contract=off)
// give the same bits, whatever -fmad says: nothing here is left for a compiler to fuse.
// Dependency-free: NVRTC, nvcc and g++. Under nvcc (both its passes) these are device functions,
// so a translation unit that includes the kernel (even inside a namespace) pulls in no host header.

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define KK3_AR_FN __device__ __forceinline__
#else
#include <cmath>
#include <cstring>
#define KK3_AR_FN inline
#endif

namespace kk3_ar_math {

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
KK3_AR_FN float mul(float a, float b) {
  return __fmul_rn(a, b);
}
KK3_AR_FN float add(float a, float b) {
  return __fadd_rn(a, b);
}
KK3_AR_FN float sub(float a, float b) {
  return __fsub_rn(a, b);
}
KK3_AR_FN float fma(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
KK3_AR_FN float div(float a, float b) {
  return __fdiv_rn(a, b);
}
KK3_AR_FN float sqrt(float a) {
  return __fsqrt_rn(a);
}
KK3_AR_FN float rint(float a) {
  return rintf(a);
}
KK3_AR_FN float from_bits(unsigned b) {
  return __uint_as_float(b);
}
#else
inline float mul(float a, float b) {
  return a * b;
}
inline float add(float a, float b) {
  return a + b;
}
inline float sub(float a, float b) {
  return a - b;
}
inline float fma(float a, float b, float c) {
  return std::fma(a, b, c);
}
inline float div(float a, float b) {
  return a / b;
}
inline float sqrt(float a) {
  return std::sqrt(a);
}
inline float rint(float a) {
  return std::nearbyint(a);
}
inline float from_bits(unsigned b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
#endif

/// -infinity: the running maximum before the first logit.
KK3_AR_FN float minus_infinity() {
  return from_bits(0xff800000u);
}

/// e^x for x <= 0 (0 below -103, for -inf and for NaN): Cody-Waite reduction by ln 2, a
/// degree-7 Taylor polynomial on |r| <= ln(2) / 2 (truncation below 2^-27 relative), and an
/// exact scaling by 2^k. About 2 fp32 ulps from e^x; the same bits on the device and the host.
KK3_AR_FN float exp_nonpositive(float x) {
  if (!(x > -103.0f)) return 0.0f;
  const float k = rint(mul(x, 1.44269502f));  // x / ln 2, to the nearest integer (0..-149)
  float r = fma(k, -0.693145751953125f, x);   // ln 2's upper 15 bits: k times it is exact
  r = fma(k, -1.42860677e-06f, r);            // ln 2's remainder
  float p = 1.98412701e-04f;                  // 1/7!, then Horner down to 1/0!
  p = fma(p, r, 1.38888892e-03f);
  p = fma(p, r, 8.33333377e-03f);
  p = fma(p, r, 4.16666679e-02f);
  p = fma(p, r, 1.66666672e-01f);
  p = fma(p, r, 0.5f);
  p = fma(p, r, 1.0f);
  p = fma(p, r, 1.0f);
  int e = static_cast<int>(k);
  if (e < -125) {  // 2^e is not a normal float: scale in two exact-or-rounded-once steps
    p = mul(p, 1.0f / 16777216.0f);
    e += 24;
  }
  return mul(p, from_bits(static_cast<unsigned>(e + 127) << 23));
}

/// A source's logit from its sum of squares and its dot product with Q over the H elements:
/// dot * (1 / sqrt(ss / H + eps)).
KK3_AR_FN float logit(float ss, float dot, float hidden, float eps) {
  return mul(dot, div(1.0f, sqrt(add(div(ss, hidden), eps))));
}

/// The output norm's scale from the sum of acc^2 over the H elements and the weights' sum s:
/// 1 / sqrt(sumsq / H + out_eps s^2).
KK3_AR_FN float norm_scale(float sumsq, float s, float hidden, float out_eps) {
  return div(1.0f, sqrt(add(div(sumsq, hidden), mul(out_eps, mul(s, s)))));
}

/// One step of the online softmax over the sources, in source order: the running maximum
/// `top` of the logits so far becomes max(top, l); `rescale` is what the running mix and the
/// sum of weights are multiplied by first (exactly 1 when the maximum did not move, then no
/// multiply is made), `weight` the source's own weight e^(l - top).
struct softmax_step {
  float top, rescale, weight;
};

KK3_AR_FN softmax_step next_step(float top, float l) {
  softmax_step s;
  s.top = l > top ? l : top;
  s.rescale = l > top ? exp_nonpositive(sub(top, l)) : 1.0f;
  s.weight = exp_nonpositive(sub(l, s.top));
  return s;
}

}  // namespace kk3_ar_math
