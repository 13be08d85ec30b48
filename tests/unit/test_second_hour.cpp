// A new user's second hour (issue 44): what the tool says matches what it did. A plan that sweeps
// part of a family's space says how much and why; configs/full.json sweeps all of it. Each case
// runs the kk3tune binary with the driver hidden.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::k_no_driver;
using test::run_kk3tune;

TEST(second_hour, the_dry_run_says_which_part_of_the_space_a_plan_sweeps_and_why) {
  const auto r = run_kk3tune({"sweep", "--dry-run"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The table has the space beside what is swept, and a line per subset says which and why.
  EXPECT_TRUE(contains(r.output, "items  variants   of  compiles")) << r.output;
  EXPECT_TRUE(contains(r.output, "mla_decode_epilogue  bf16            1        13  288"))
      << r.output;
  EXPECT_TRUE(contains(r.output,
                       "swept over part of the space:\n  mla_decode_epilogue: 13 of 288 "
                       "variants a mode: the plan's `variants` list (the reference with "
                       "it); why: the variants that won a token count"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "  attn_res: ")) << "attn_res is swept whole: " << r.output;
  // --variant narrows the space too, and says so.
  const auto narrowed = run_kk3tune(
      {"sweep", "--dry-run", "--family", "attn_res", "--variant", "STAGE=3"}, {k_no_driver});
  EXPECT_TRUE(contains(narrowed.output, "  attn_res: 9 of 23 variants a mode: --variant STAGE=3"))
      << narrowed.output;
}

TEST(second_hour, configs_full_json_sweeps_every_variant_of_every_mode) {
  const fs::path full = fs::path(KK3_CONFIG_DIR) / "full.json";
  const auto r = run_kk3tune({"sweep", "--dry-run", "--config", full.string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "mla_decode_epilogue  bf16            1       288  288"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "attn_res             final_nb8       1        32   32"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "swept over part of the space")) << r.output;
}

TEST(second_hour, split_keeping_empty_keeps_what_split_drops) {
  // what --tokens reads its elements with, so that it can refuse "1,,2" and "1,"
  EXPECT_EQ(split_keeping_empty("1, ,2", ','), (std::vector<std::string>{"1", "", "2"}));
  EXPECT_EQ(split_keeping_empty("1,", ','), (std::vector<std::string>{"1", ""}));
  EXPECT_EQ(split(" 1, ,2,", ','), (std::vector<std::string>{"1", "2"}));
}

TEST(second_hour, a_variants_note_needs_its_list) {
  test::temp_dir dir;
  const fs::path plan = dir.path() / "p.json";
  test::write_text(plan, R"({"families": {"attn_res": {"variants_note": "why"}}, "tokens": [1]})");
  const auto r = run_kk3tune({"sweep", "--dry-run", "--config", plan.string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, plan.string() + ": /families/attn_res/variants_note: expected a "
                                                 "string, beside a \"variants\" list it explains"))
      << r.output;
}

}  // namespace
}  // namespace kk3
