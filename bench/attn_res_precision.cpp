// attn_res's accuracy against SPEC 1.3, measured on the CPU over many tokens (issue 24): the
// kernel's arithmetic, emulated bit for bit (src/families/attn_res/kernel_emulation.cpp; the GPU
// test attn_res_emulation_gpu checks the GPU writes the same bits), held to the bound the
// verifier applies (verify/tolerance.hpp) against the float64 CPU reference
// (families/attn_res: x and the terms' magnitude m per element). The inputs are the verifier's
// own (attn_res::make_problem: normal values, block n scaled by 0.5 + 0.4 n, prefix sd 2, delta
// sd 0.5, weights around 1 and 3/sqrt(H)), T tokens per seed.
//   kk3_attn_res_precision [T] [seeds]    prints, per case, the exact share, the largest distance
//                                         in bf16 ulps and the worst ratio |out - x| / (ulp + 2^-12
//                                         m)
// For contrast each case also holds to the bound an output whose mix accumulates in bf16 (each
// source added to a bf16 accumulator): an arithmetic the bound must reject.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "families/attn_res/attn_res.hpp"
#include "families/attn_res/kernel_emulation.hpp"
#include "families/numerics.hpp"
#include "verify/tolerance.hpp"

namespace {

using namespace kk3;

struct kind {
  const char* name;
  int nb;
  bool delta, norm, write;
};

space::mode mode_of(const kind& k) {
  space::mode m;
  m.name = std::string(k.name) + "_nb" + std::to_string(k.nb);
  m.defines = {{"H", "7168"},
               {"NB", std::to_string(k.nb)},
               {"HAS_DELTA", k.delta ? "1" : "0"},
               {"HAS_OUT_NORM", k.norm ? "1" : "0"},
               {"BLOCK_WRITE", k.write ? "1" : "0"}};
  return m;
}

/// The output of the formula with a bf16 accumulator: each source's weighted row added to acc
/// and rounded to bf16 (the weights, logits and norm from float64, as exact as they get).
std::vector<std::uint16_t> bf16_accumulated(const kind& k, const families::problem& start,
                                            long long tokens) {
  const long long hd = 7168, n = k.nb + 1;
  const auto& blocks = start.at("blocks");
  const long long token_stride = blocks.dims.at(1);
  std::vector<std::uint16_t> out(static_cast<std::size_t>(tokens * hd));
  for (long long t = 0; t < tokens; ++t) {
    auto v = [&](long long s, long long i) -> double {
      if (s < k.nb)
        return families::bf16_to_f32(blocks.data<std::uint16_t>()[t * token_stride + s * hd + i]);
      const float pre = families::bf16_to_f32(start.at("prefix").data<std::uint16_t>()[t * hd + i]);
      const float d =
          k.delta ? families::bf16_to_f32(start.at("delta").data<std::uint16_t>()[t * hd + i])
                  : 0.0f;
      return families::bf16_to_f32(families::f32_to_bf16_rn(pre + d));
    };
    std::vector<double> logit(static_cast<std::size_t>(n));
    double top = -INFINITY;
    for (long long s = 0; s < n; ++s) {
      double ss = 0, dot = 0;
      for (long long i = 0; i < hd; ++i) {
        const double q =
            static_cast<double>(families::bf16_to_f32(start.at("rms_w").data<std::uint16_t>()[i]) *
                                families::bf16_to_f32(start.at("res_w").data<std::uint16_t>()[i]));
        ss += v(s, i) * v(s, i);
        dot += v(s, i) * q;
      }
      logit[s] = dot / std::sqrt(ss / hd + 1e-5);
      top = std::max(top, logit[s]);
    }
    double z = 0;
    for (double& l : logit) z += (l = std::exp(l - top));
    std::vector<double> acc(static_cast<std::size_t>(hd));
    double sq = 0;
    for (long long i = 0; i < hd; ++i) {
      float a = 0;
      for (long long s = 0; s < n; ++s)
        a = families::bf16_to_f32(
            families::f32_to_bf16_rn(a + static_cast<float>(logit[s] / z * v(s, i))));
      acc[i] = a;
      sq += static_cast<double>(a) * a;
    }
    const double r = 1 / std::sqrt(sq / hd + 1e-5);
    for (long long i = 0; i < hd; ++i) {
      const double w =
          k.norm ? families::bf16_to_f32(start.at("out_w").data<std::uint16_t>()[i]) : 1.0;
      out[t * hd + i] = families::f64_to_bf16_rn(k.norm ? acc[i] * r * w : acc[i]);
    }
  }
  return out;
}

struct totals {
  std::size_t elements = 0, exact = 0, over = 0;
  int max_ulps = 0;
  double worst_ratio = 0;
  void add(const verify::bound_figures& f) {
    elements += f.elements;
    exact += f.exact;
    over += f.over ? 1 : 0;
    max_ulps = std::max(max_ulps, f.max_ulps);
    worst_ratio = std::max(worst_ratio, f.worst_ratio);
  }
  void print(const char* what) const {
    std::printf(
        "  %-16s %9zu elements: %.5f%% exact (bound: >= 99.9%%), max %d ulps, worst ratio %.4f "
        "(limit 1)%s\n",
        what, elements, 100.0 * static_cast<double>(exact) / static_cast<double>(elements),
        max_ulps, worst_ratio,
        worst_ratio <= 1 && exact >= elements * 999 / 1000 ? "  within" : "  BEYOND");
  }
};

}  // namespace

int main(int argc, char** argv) {
  const long long tokens = argc > 1 ? std::atoll(argv[1]) : 200;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 2;
  const families::attn_res family;
  for (const kind& k : {kind{"common", 1, true, true, false}, kind{"common", 4, true, true, false},
                        kind{"common", 8, true, true, false}, kind{"post", 8, false, true, false},
                        kind{"final", 8, true, false, false}, kind{"write", 4, true, true, true}}) {
    const space::mode m = mode_of(k);
    totals kernel, bf16_acc;
    for (int seed = 1; seed <= seeds; ++seed) {
      const families::shape shape = family.model_shape(tokens, m, {});
      const families::problem start =
          family.make_problem(shape, m, static_cast<unsigned long long>(seed));
      families::problem want = start;
      family.reference(shape, m, want);
      families::problem got = start;
      families::emulate_attn_res_kernel(families::attn_res_call_of(m, tokens, got));
      const auto& x = want.at("out");
      kernel.add(verify::bound_check(got.at("out").data<std::uint16_t>(), x.exact_value.data(),
                                     x.term_magnitude.data(), x.elements()));
      const std::vector<std::uint16_t> coarse = bf16_accumulated(k, start, tokens);
      bf16_acc.add(verify::bound_check(coarse.data(), x.exact_value.data(), x.term_magnitude.data(),
                                       coarse.size()));
    }
    std::printf("%s NB=%d, T=%lld x %d seeds, H=7168, against float64 (SPEC 1.3):\n", k.name, k.nb,
                tokens, seeds);
    kernel.print("kernel (fp32)");
    bf16_acc.print("bf16 accumulator");
  }
}
