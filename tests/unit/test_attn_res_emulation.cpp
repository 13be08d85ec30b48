// attn_res's kernel arithmetic, emulated on the CPU (families/attn_res/kernel_emulation.cpp, the
// same bits as the GPU: tests/gpu/test_attn_res_emulation.cpp), within SPEC 1.3's bound of the
// float64 reference (verify/tolerance.hpp) in a case of each kind, and its prefix update and block
// write bit for bit the reference's.
#include <gtest/gtest.h>

#include <random>

#include "families/attn_res/kernel_emulation.hpp"
#include "families/registry.hpp"
#include "verify/tolerance.hpp"

namespace kk3::families {
namespace {

TEST(attn_res_emulation,
     the_kernels_arithmetic_is_within_the_bound_and_updates_like_the_reference) {
  const auto space = load_family_space(find_family("attn_res"), KK3_CONFIG_DIR);
  const unsigned long long seed = std::random_device{}() | 1ull;
  std::cout << "[ seed ] " << seed << "\n";
  for (const char* name :
       {"common_nb8", "post_nb8", "final_nb8", "write_nb4", "common_nb1", "write_nb0"}) {
    const space::mode& m = space::find_mode(space.config, name);
    const shape s = space.impl->model_shape(17, m, {});
    const problem start = space.impl->make_problem(s, m, seed);
    problem want = start, got = start;
    space.impl->reference(s, m, want);
    emulate_attn_res_kernel(attn_res_call_of(m, s.tokens, got));
    const tensor& x = want.at("out");
    const verify::bound_figures f =
        verify::bound_check(got.at("out").data<std::uint16_t>(), x.exact_value.data(),
                            x.term_magnitude.data(), x.elements());
    EXPECT_TRUE(f.passes()) << name << ": worst ratio " << f.worst_ratio << ", "
                            << 100 * f.exact_share() << "% exact";
    EXPECT_LT(f.worst_ratio, 0.5 + 1e-3) << name << ": beyond the final rounding's half ulp";
    EXPECT_EQ(got.at("prefix").bytes, want.at("prefix").bytes) << name;
    EXPECT_EQ(got.at("blocks").bytes, want.at("blocks").bytes) << name;
  }
}

}  // namespace
}  // namespace kk3::families
