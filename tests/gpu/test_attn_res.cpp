// GPU verification of attn_res: every variant in every mode bit for bit equal to the reference
// variant, out within SPEC 1.3's bound of the float64 CPU reference (every ratio |out - x| /
// (ulp_bf16(x) + 2^-12 m) at most 1, at least 99.9% of the elements equal to bf16(x)), the prefix
// update and the block write bitwise, no shipped variant flagged by the PDL hazard check, the
// early reader flagged; and H from 256 to 16384 through a mode's H, where a variant the device
// cannot launch is recorded as unlaunchable and the others still verify.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "families/registry.hpp"
#include "support/test_support.hpp"
#include "verify/verifier.hpp"

namespace kk3::verify {
namespace {

class attn_res_gpu : public test::hopper_jit_test {
 protected:
  /// Verifies every variant of `space` (test-only ones included) in mode `m`; expects each
  /// shipped one ok (or, where allowed, unlaunchable) and each test-only one flagged. Returns the
  /// unlaunchable count and prints the mode's figures against the CPU reference.
  int check_mode(const verifier& check, const families::family_space& space, const space::mode& m,
                 const verify_options& o, bool unlaunchable_allowed) {
    accuracy worst;
    int variants = 0, unlaunchable = 0;
    for (const auto& r : check.verify_mode(space, m, space.variants, o)) {
      if (r.test_only) {
        EXPECT_EQ(r.outcome, results::status::pdl_hazard)
            << m.name << " " << r.variant << ": " << r.reason;
        continue;
      }
      if (r.outcome == results::status::unlaunchable) {
        // Only shared memory may run out, and only where the caller allows it.
        EXPECT_TRUE(unlaunchable_allowed || r.reason.find("shared memory") != std::string::npos)
            << m.name << " " << r.variant << ": " << r.reason;
        std::printf("  %s %s: %s\n", m.name.c_str(), r.variant.c_str(), r.reason.c_str());
        ++unlaunchable;
        continue;
      }
      EXPECT_EQ(r.outcome, results::status::ok) << m.name << " " << r.variant << ": " << r.reason;
      EXPECT_GE(r.exact_fraction, 0.999) << m.name << " " << r.variant;
      EXPECT_LE(r.worst_ratio, 1.0) << m.name << " " << r.variant;
      worst.merge(r);
      ++variants;
    }
    std::printf(
        "attn_res %-22s %d variants ok, %d unlaunchable; T=%lld%s and the edge shapes: against "
        "float64 at least %.4f%% exact, at most %d ulps, worst ratio %.3f\n",
        m.name.c_str(), variants, unlaunchable, o.tokens.front(),
        o.tokens.size() > 1 ? " and 4097" : "", 100 * worst.exact_fraction, worst.max_ulps,
        worst.worst_ratio);
    return unlaunchable;
  }
};

// Every mode (write with its block write, post, common, final; NB 0 to 8) at the edge shapes
// (T = 1, 2 strided, 7, 64 strided; the write modes also T = 3 strided with the block write into
// block NB + 1, a spare block NB left untouched) and T = 65; write_nb0, common_nb8 and final_nb8
// also at T = 4097, an odd T past the 4096 that a power-of-two grid would stop at.
TEST_F(attn_res_gpu, every_variant_in_every_mode_matches_and_the_early_reader_is_caught) {
  const verifier check(info, *engine, KK3_KERNEL_DIR, *helpers);
  const auto space =
      families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR, true);
  ASSERT_EQ(space.config.modes.size(), 25u);
  for (const auto& m : space.config.modes) {
    verify_options o;
    o.seed = 4097;
    o.tokens = {65};
    if (m.name == "write_nb0" || m.name == "common_nb8" || m.name == "final_nb8")
      o.tokens.push_back(4097);
    // At the model's H every variant fits: the largest ring (B = 1, NC = 3, STAGES = 3: ten rows
    // of 14 KiB) needs 140 KiB of shared memory.
    EXPECT_EQ(check_mode(check, space, m, o, false), 0) << m.name;
  }
}

// H is any multiple of 256 up to 16384 through a mode's H: fewer slices than CTAs in a cluster
// (H = 256 and 1280 with B = 7 and 14), an odd slice count (3328 = 13 x 256), and H = 16384, where
// the staged variants of NB = 8 need more shared memory than a CTA may have: recorded as
// unlaunchable with the reason, while verification goes on.
TEST_F(attn_res_gpu, any_h_up_to_16384_verifies_and_what_cannot_launch_is_recorded) {
  const verifier check(info, *engine, KK3_KERNEL_DIR, *helpers);
  const auto space =
      families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR, true);
  struct custom {
    long long hidden, nb;
    bool delta, norm, write;
  };
  for (const custom& c :
       {custom{256, 2, true, true, false}, custom{1280, 8, true, true, true},
        custom{3328, 5, false, true, false}, custom{16384, 0, false, true, true},
        custom{16384, 8, true, true, false}, custom{16384, 8, true, false, false}}) {
    space::mode m;
    m.name = "H" + std::to_string(c.hidden) + "_nb" + std::to_string(c.nb) +
             (c.write   ? "_write"
              : c.delta ? ""
                        : "_post") +
             (c.norm ? "" : "_final");
    m.file = "tests/gpu/test_attn_res.cpp";
    m.defines = {{"H", std::to_string(c.hidden)},
                 {"NB", std::to_string(c.nb)},
                 {"HAS_DELTA", c.delta ? "1" : "0"},
                 {"HAS_OUT_NORM", c.norm ? "1" : "0"},
                 {"BLOCK_WRITE", c.write ? "1" : "0"}};
    verify_options o;
    o.seed = 256 + c.hidden;
    o.tokens = {33};
    const int unlaunchable = check_mode(check, space, m, o, true);
    if (c.hidden == 16384 && c.nb == 8 && c.delta && c.norm) {
      EXPECT_GT(unlaunchable, 0)
          << "the staged one-CTA variants need 10 rows x 32 KiB of shared memory";
    }
    if (c.hidden < 16384) EXPECT_EQ(unlaunchable, 0) << m.name;
  }
}

}  // namespace
}  // namespace kk3::verify
