// GPU verification of attn_res: every variant in every mode bit for bit equal to the reference
// variant, the reference within 1 bf16 ulp of the float64 CPU reference (99% exact), the prefix
// update bitwise, no shipped variant flagged by the PDL hazard check, the early reader flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "families/registry.hpp"
#include "support/test_support.hpp"
#include "verify/verifier.hpp"

namespace kk3::verify {
namespace {

// Every mode (NB = 0, 1, 4, 8; with and without delta and the output norm) at the edge shapes
// (T = 1, 2 strided, 7, 64 strided) and T = 65; NB = 0 and NB = 8 also at T = 4097, an odd T
// past the 4096 that a power-of-two grid would stop at. Prints the figures against the CPU
// reference per mode.
class attn_res_gpu : public test::hopper_jit_test {};

TEST_F(attn_res_gpu, every_variant_in_every_mode_matches_and_the_early_reader_is_caught) {
  const verifier check(info, *engine, KK3_KERNEL_DIR, *helpers);
  const auto space = families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR, true);
  for (const auto& m : space.config.modes) {
    verify_options o;
    o.seed = 4097;
    o.tokens = {65};
    if (m.name == "nb0" || m.name == "nb8") o.tokens.push_back(4097);
    double exact = 1.0;
    int ulps = 0, variants = 0;
    for (const auto& r : check.verify_mode(space, m, space.variants, o)) {
      if (r.test_only) {
        EXPECT_EQ(r.outcome, status::pdl_hazard) << m.name << " " << r.variant << ": " << r.reason;
        continue;
      }
      EXPECT_EQ(r.outcome, status::ok) << m.name << " " << r.variant << ": " << r.reason;
      EXPECT_GE(r.exact_fraction, 0.99) << m.name << " " << r.variant;
      EXPECT_LE(r.max_ulps, 1) << m.name << " " << r.variant;
      exact = std::min(exact, r.exact_fraction);
      ulps = std::max(ulps, r.max_ulps);
      ++variants;
    }
    std::printf("attn_res %-10s %d variants, shapes T=65%s and the edge shapes: against float64 at least %.4f%% exact, at most %d ulps\n",
                m.name.c_str(), variants, o.tokens.size() > 1 ? ", 4097" : "", 100 * exact, ulps);
  }
}

}  // namespace
}  // namespace kk3::verify
