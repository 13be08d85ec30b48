// GPU verification of attn_res: every variant in every mode bit for bit equal to the reference
// variant, the reference within 1 bf16 ulp of the float64 CPU reference (99% exact), the prefix
// update bitwise, no shipped variant flagged by the PDL hazard check, the early reader flagged.
#include <gtest/gtest.h>

#include <optional>

#include "families/registry.hpp"
#include "support/test_support.hpp"
#include "verify/verifier.hpp"

namespace kk3::verify {
namespace {

TEST(attn_res_gpu, every_variant_in_every_mode_matches_and_the_early_reader_is_caught) {
  std::string why;
  const auto info = test::hopper_or_newer(why);
  if (!info) GTEST_SKIP() << why;
  const device::context ctx(0);
  const auto engine = test::make_engine({});
  const timing::helper_kernels helpers(engine, info->arch, KK3_KERNEL_DIR);
  const verifier check(*info, engine, KK3_KERNEL_DIR, helpers);
  const auto space = families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR, true);
  verify_options o;
  o.seed = 4097;
  o.tokens = {4097};
  for (const auto& m : space.config.modes) {
    for (const auto& r : check.verify_mode(space, m, space.variants, o)) {
      if (r.test_only) {
        EXPECT_EQ(r.outcome, status::pdl_hazard) << m.name << " " << r.variant << ": " << r.reason;
        continue;
      }
      EXPECT_EQ(r.outcome, status::ok) << m.name << " " << r.variant << ": " << r.reason;
      EXPECT_GE(r.exact_fraction, 0.99) << m.name << " " << r.variant;
      EXPECT_LE(r.max_ulps, 1) << m.name << " " << r.variant;
    }
  }
}

}  // namespace
}  // namespace kk3::verify
