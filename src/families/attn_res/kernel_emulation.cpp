#include "families/attn_res/kernel_emulation.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "attn_res_math.h"
#include "families/numerics.hpp"
#include "families/problem.hpp"

namespace kk3::families {
namespace {

namespace am = kk3_ar_math;

/// The warp's butterfly over 32 lane values (pairs l, l ^ 16 first, then ^ 8, ...): the sum
/// every lane ends with.
float butterfly(float v[32]) {
  for (int o = 16; o >= 1; o /= 2) {
    float w[32];
    for (int l = 0; l < 32; ++l) w[l] = am::add(v[l], v[l ^ o]);
    std::memcpy(v, w, sizeof w);
  }
  return v[0];
}

/// The token's total of per-slice sums: lane l adds slices l, l + 32, ... in order, then the
/// butterfly.
float slices_total(const std::vector<float>& per_slice) {
  float lanes[32];
  for (int l = 0; l < 32; ++l) {
    lanes[l] = 0.0f;
    for (std::size_t k = static_cast<std::size_t>(l); k < per_slice.size(); k += 32)
      lanes[l] = am::add(lanes[l], per_slice[k]);
  }
  return butterfly(lanes);
}

/// A row's total of unit sums: each unit (8 elements) by term(i, sum) in order, the 32 units of
/// a slice by the butterfly, the slices by slices_total.
template <class Term>
float row_total(long long hidden, Term term) {
  const long long slices = hidden / 256;
  std::vector<float> per_slice(static_cast<std::size_t>(slices));
  for (long long k = 0; k < slices; ++k) {
    float units[32];
    for (int u = 0; u < 32; ++u) {
      float sum = 0.0f;
      for (int x = 0; x < 8; ++x) sum = term(k * 256 + 8 * u + x, sum);
      units[u] = sum;
    }
    per_slice[static_cast<std::size_t>(k)] = butterfly(units);
  }
  return slices_total(per_slice);
}

void emulate_token(const attn_res_call& c, long long t) {
  const long long hd = c.hidden, sources = c.nb + 1;
  const float hidden = static_cast<float>(hd);
  std::uint16_t* pre = c.prefix + t * hd;
  std::uint16_t* token_blocks = c.blocks + t * c.block_token_stride;
  std::vector<std::uint16_t> p(pre, pre + hd);
  if (c.delta) {
    const std::uint16_t* d = c.delta_in + t * hd;
    for (long long i = 0; i < hd; ++i)
      p[i] = f32_to_bf16_rn(am::add(bf16_to_f32(pre[i]), bf16_to_f32(d[i])));
    std::copy(p.begin(), p.end(), pre);
  }
  if (c.block_write)
    std::copy(p.begin(), p.end(), token_blocks + c.block_write_idx * c.block_stride);
  auto source = [&](long long n, long long i) {
    return bf16_to_f32(n < c.nb ? token_blocks[n * c.block_stride + i]
                                : p[static_cast<std::size_t>(i)]);
  };
  std::vector<float> q(static_cast<std::size_t>(hd)), acc(static_cast<std::size_t>(hd));
  for (long long i = 0; i < hd; ++i)
    q[i] = am::mul(bf16_to_f32(c.rms_w[i]), bf16_to_f32(c.res_w[i]));

  // A source's logit: its sum of squares and its dot product with Q, each in the fixed tree.
  auto logit_of = [&](long long n) {
    const float ss = row_total(
        hd, [&](long long i, float sum) { return am::fma(source(n, i), source(n, i), sum); });
    const float dot =
        row_total(hd, [&](long long i, float sum) { return am::fma(source(n, i), q[i], sum); });
    return am::logit(ss, dot, hidden, c.eps);
  };
  float s = 1.0f, top = am::minus_infinity();
  for (long long n = 0; n < sources; ++n) {
    // With one source there is nothing to weigh: the kernel computes no logit.
    const am::softmax_step step =
        sources > 1 ? am::next_step(top, logit_of(n)) : am::softmax_step{top, 1.0f, 1.0f};
    top = step.top;
    if (n == 0) {  // the first source sets acc = V and s = 1; its logit only the maximum
      for (long long i = 0; i < hd; ++i) acc[i] = source(0, i);
      continue;
    }
    if (step.rescale != 1.0f) {
      for (float& a : acc) a = am::mul(a, step.rescale);
      s = am::mul(s, step.rescale);
    }
    for (long long i = 0; i < hd; ++i) {
      acc[i] = am::fma(step.weight, source(n, i), acc[i]);
      if (c.bf16_accumulator) acc[i] = bf16_to_f32(f32_to_bf16_rn(acc[i]));
    }
    s = am::add(s, step.weight);
  }

  std::uint16_t* out = c.out + t * hd;
  if (c.out_norm) {
    const float sumsq =
        row_total(hd, [&](long long i, float sum) { return am::fma(acc[i], acc[i], sum); });
    const float scale = am::norm_scale(sumsq, s, hidden, c.out_eps);
    for (long long i = 0; i < hd; ++i)
      out[i] = f32_to_bf16_rn(am::mul(am::mul(acc[i], scale), bf16_to_f32(c.out_w[i])));
  } else {
    const float scale = am::div(1.0f, s);
    for (long long i = 0; i < hd; ++i) out[i] = f32_to_bf16_rn(am::mul(acc[i], scale));
  }
}

}  // namespace

attn_res_call attn_res_call_of(const space::mode& m, long long tokens, problem& p) {
  attn_res_call c;
  c.tokens = tokens;
  c.hidden = m.define_or("H", 7168);
  c.nb = m.define_or("NB", 4);
  c.delta = m.define_or("HAS_DELTA", 1) != 0;
  c.out_norm = m.define_or("HAS_OUT_NORM", 1) != 0;
  c.block_write = m.define_or("BLOCK_WRITE", 0) != 0;
  c.block_token_stride = p.at("blocks").dims.at(1);
  c.block_stride = c.hidden;
  c.block_write_idx = c.nb;
  c.blocks = p.at("blocks").data<std::uint16_t>();
  c.prefix = p.at("prefix").data<std::uint16_t>();
  c.delta_in = c.delta ? p.at("delta").data<std::uint16_t>() : nullptr;
  c.rms_w = p.at("rms_w").data<std::uint16_t>();
  c.res_w = p.at("res_w").data<std::uint16_t>();
  c.out_w = c.out_norm ? p.at("out_w").data<std::uint16_t>() : nullptr;
  c.out = p.at("out").data<std::uint16_t>();
  return c;
}

void emulate_attn_res_kernel(const attn_res_call& c) {
  parallel_for(static_cast<std::size_t>(c.tokens),
               [&](std::size_t t) { emulate_token(c, static_cast<long long>(t)); });
}

}  // namespace kk3::families
