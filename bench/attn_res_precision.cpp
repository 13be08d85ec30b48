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
// For contrast each case also holds to the bound the same arithmetic with the mix rounded to bf16
// after every source (attn_res_call::bf16_accumulator): an arithmetic the bound must reject.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "families/attn_res/attn_res.hpp"
#include "families/attn_res/kernel_emulation.hpp"
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
      const auto& x = want.at("out");
      // The kernel's arithmetic on a copy of the inputs (or the contrast with a bf16 accumulator),
      // held to the bound.
      auto emulated = [&](bool bf16_accumulator) {
        families::problem got = start;
        families::attn_res_call c = families::attn_res_call_of(m, tokens, got);
        c.bf16_accumulator = bf16_accumulator;
        families::emulate_attn_res_kernel(c);
        return verify::bound_check(got.at("out").data<std::uint16_t>(), x.exact_value.data(),
                                   x.term_magnitude.data(), x.elements());
      };
      kernel.add(emulated(false));
      bf16_acc.add(emulated(true));
    }
    std::printf("%s NB=%d, T=%lld x %d seeds, H=7168, against float64 (SPEC 1.3):\n", k.name, k.nb,
                tokens, seeds);
    kernel.print("kernel (fp32)");
    bf16_acc.print("bf16 accumulator");
  }
}
