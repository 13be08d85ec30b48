// A new user's second hour (issue 44): what the tool says matches what it did. A plan that sweeps
// part of a family's space says how much and why; configs/full.json sweeps all of it. Each case
// runs the kk3tune binary with the driver hidden.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "families/registry.hpp"
#include "space/selection_filter.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::k_no_driver;
using test::run_kk3tune;

/// A family's space as `kk3tune list` gives it: its variants a mode, test-only ones left out.
families::family_space space_of(const std::string& family) {
  return families::load_family_space(families::find_family(family), KK3_CONFIG_DIR);
}

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
  // --variant narrows the space too, and says so: the variants it selects and the reference (always
  // swept), of the whole space (configs/attn_res.json).
  const families::family_space ar = space_of("attn_res");
  const auto stage3 = space::select_variants(ar.variants, ar.config, "STAGE=3");
  const bool reference_among = std::any_of(stage3.begin(), stage3.end(),
                                           [](const space::variant* v) { return v->is_reference; });
  const std::size_t swept = stage3.size() + (reference_among ? 0 : 1);
  ASSERT_LT(swept, ar.variants.size()) << "STAGE=3 is part of the space, not all of it";
  const auto narrowed = run_kk3tune(
      {"sweep", "--dry-run", "--family", "attn_res", "--variant", "STAGE=3"}, {k_no_driver});
  EXPECT_TRUE(contains(narrowed.output, "  attn_res: " + std::to_string(swept) + " of " +
                                            std::to_string(ar.variants.size()) +
                                            " variants a mode: --variant STAGE=3\n"))
      << narrowed.output;
}

TEST(second_hour, configs_full_json_sweeps_every_variant_of_every_mode) {
  const fs::path full = fs::path(KK3_CONFIG_DIR) / "full.json";
  const auto r = run_kk3tune({"sweep", "--dry-run", "--config", full.string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Each family's row of each of its modes: one item, its variants = the whole space (what
  // `kk3tune list` counts a mode).
  for (const char* family : {"mla_decode_epilogue", "attn_res"}) {
    const families::family_space f = space_of(family);
    const std::string all = std::to_string(f.variants.size());
    std::size_t rows = 0;
    for (const std::string& line : split(r.output, '\n')) {
      const std::vector<std::string> cells = split(line, ' ');
      if (cells.empty() || cells[0] != family) continue;
      ++rows;
      ASSERT_GE(cells.size(), 5u) << line;
      EXPECT_EQ(cells[2], "1") << line;
      EXPECT_EQ(cells[3], all) << line << ": every variant of " << family;
      EXPECT_EQ(cells[4], all) << line;
    }
    EXPECT_EQ(rows, f.config.modes.size()) << family << ": a row for every mode\n" << r.output;
  }
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
