// Selection with tie bands and range merging (src/select), and the sweep plan loader.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "select/selection.hpp"
#include "support/test_support.hpp"
#include "sweep/sweep_config.hpp"

namespace kk3 {
namespace {

using select::choose;
using select::timed_variant;

const select::selection_rule k_rule{0.02, 2.0};

TEST(selection, a_challenger_inside_the_tie_band_leaves_the_incumbent) {
  // 1.5% faster with 0.2% noise: below the 2% minimum gain.
  const std::vector<timed_variant> t = {{"ref", 10.0, 0.002, true}, {"fast", 9.85, 0.002, true}};
  const auto c = choose(64, t, "ref", std::nullopt, k_rule);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->winner, "ref");
  EXPECT_TRUE(c->incumbent_kept);
  EXPECT_EQ(c->runner_up, "fast");
  EXPECT_NEAR(c->margin, 9.85 / 10.0 - 1, 1e-12);  // negative: the runner-up was faster, within the band
}

TEST(selection, a_gain_within_the_noise_does_not_count) {
  // 5% faster but each median uncertain by 3%: 2 sigma of the difference is 8.4%.
  const std::vector<timed_variant> t = {{"ref", 10.0, 0.03, true}, {"fast", 9.5, 0.03, true}};
  EXPECT_EQ(choose(1, t, "ref", std::nullopt, k_rule)->winner, "ref");
  const std::vector<timed_variant> quiet = {{"ref", 10.0, 0.003, true}, {"fast", 9.5, 0.003, true}};
  const auto c = choose(1, quiet, "ref", std::nullopt, k_rule);
  EXPECT_EQ(c->winner, "fast");
  EXPECT_FALSE(c->incumbent_kept);
  EXPECT_EQ(c->runner_up, "ref");
  EXPECT_NEAR(c->margin, 10.0 / 9.5 - 1, 1e-12);
}

TEST(selection, the_previous_winner_is_the_incumbent_and_unqualified_variants_never_win) {
  const std::vector<timed_variant> t = {{"ref", 10.0, 0.001, true}, {"prev", 9.0, 0.001, true}, {"next", 8.9, 0.001, true},
                                        {"wrong", 5.0, 0.001, false}};
  const auto c = choose(65, t, "ref", std::string("prev"), k_rule);
  EXPECT_EQ(c->winner, "prev");  // 1.1% faster: not enough to displace the incumbent
  EXPECT_TRUE(c->incumbent_kept);
  EXPECT_EQ(choose(65, t, "ref", std::nullopt, k_rule)->winner, "next");
  EXPECT_FALSE(choose(1, {{"wrong", 1.0, 0, false}}, "ref", std::nullopt, k_rule));
}

TEST(selection, the_choice_does_not_depend_on_the_input_order) {
  std::vector<timed_variant> t = {{"b", 9.0, 0, true}, {"a", 9.0, 0, true}, {"ref", 12.0, 0, true}};
  const auto first = choose(8, t, "ref", std::nullopt, k_rule);
  std::reverse(t.begin(), t.end());
  const auto second = choose(8, t, "ref", std::nullopt, k_rule);
  EXPECT_EQ(first->winner, "a");
  EXPECT_EQ(second->winner, "a");
  EXPECT_EQ(first->runner_up, second->runner_up);
}

TEST(selection, adjacent_counts_with_one_winner_merge_into_ranges) {
  std::vector<select::choice> cs;
  auto add = [&](long long t, const char* w, const char* r, double margin, bool kept = false) {
    select::choice c;
    c.tokens = t;
    c.winner = w;
    c.runner_up = r;
    c.margin = margin;
    c.incumbent_kept = kept;
    cs.push_back(c);
  };
  add(1, "s3", "s2", 0.10);
  add(32, "s3", "s2", 0.05);
  add(64, "s3", "s1", 0.01, true);
  add(65, "s1", "s3", 0.04);
  add(8192, "s1", "s2", 0.20);
  const auto ranges = select::merge(cs);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].min_tokens, 1);
  EXPECT_EQ(ranges[0].max_tokens, 64);
  EXPECT_EQ(ranges[0].winner, "s3");
  EXPECT_EQ(ranges[0].runner_up, "s2");
  EXPECT_DOUBLE_EQ(ranges[0].margin, 0.05);
  EXPECT_TRUE(ranges[0].incumbent_kept);
  EXPECT_EQ(ranges[0].tokens, (std::vector<long long>{1, 32, 64}));
  EXPECT_EQ(ranges[1].min_tokens, 65);
  EXPECT_EQ(ranges[1].max_tokens, 8192);
  EXPECT_DOUBLE_EQ(ranges[1].margin, 0.12);
  EXPECT_FALSE(ranges[1].incumbent_kept);
}

TEST(sweep_plan, the_default_plan_covers_both_families_and_the_issue_token_counts) {
  const auto c = sweep::load_sweep_config(std::filesystem::path(KK3_CONFIG_DIR) / "default.json");
  ASSERT_EQ(c.families.size(), 2u);
  EXPECT_EQ(c.families[0].family, "mla_decode_epilogue");
  EXPECT_EQ(c.families[1].family, "attn_res");
  EXPECT_TRUE(c.families[0].modes.empty());  // "all"
  EXPECT_EQ(c.tokens, sweep::default_tokens());
  EXPECT_DOUBLE_EQ(c.selection.min_gain, 0.02);
}

std::string plan_error(const std::string& text) {
  test::temp_dir dir;
  const auto file = dir.path() / "plan.json";
  std::ofstream(file) << text;
  try {
    sweep::load_sweep_config(file);
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

TEST(sweep_plan, bad_plans_name_the_file_and_the_json_path) {
  EXPECT_NE(plan_error(R"({"families": {"attn_res": {}}, "tokens": [1, 0]})").find("plan.json: /tokens/1: expected a positive integer"),
            std::string::npos);
  EXPECT_NE(plan_error(R"({"families": {"attn_res": {}}, "tokens": [64, 8]})").find("/tokens/1: expected ascending"), std::string::npos);
  EXPECT_NE(plan_error(R"({"families": {"attn_res": {"mode": "all"}}})").find("/families/attn_res/mode: unknown key"), std::string::npos);
  EXPECT_NE(plan_error(R"({"families": {}})").find("/families: expected at least one family"), std::string::npos);
  EXPECT_NE(plan_error(R"({"families": {"attn_res": {}}, "selection": {"min_gain": 3}})").find("/selection/min_gain: expected a number from 0 to 1"),
            std::string::npos);
  EXPECT_NE(plan_error(R"({"families": )").find("not valid JSON"), std::string::npos);
}

const std::string k_no_driver = "KK3TUNE_LIBCUDA=/nonexistent/libcuda.so.1";

TEST(sweep_cli, without_a_gpu_compiles_the_plan_for_two_archs_says_nothing_was_timed_and_exits_3) {
  test::temp_dir dir;
  const auto out = dir.path() / "sweep.json";
  const auto r = test::run_kk3tune({"sweep", "--config", std::string(KK3_FIXTURE_DIR) + "/sweep/small-plan.json", "--out", out.string(),
                                    "--cache-dir", (dir.path() / "cache").string()},
                                   {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("nothing was timed"), std::string::npos) << r.output;
  // 3 mla variants x 2 modes + 2 attn_res variants x 1 mode, for sm_90a and sm_100a.
  EXPECT_NE(r.output.find("16 variant compiles for sm_100a, sm_90a: 16 ok, 0 failed"), std::string::npos) << r.output;
  const std::string json = read_file(out);
  EXPECT_NE(json.find("\"kind\": \"sweep\""), std::string::npos);
  EXPECT_NE(json.find("\"timed\": false"), std::string::npos);
  EXPECT_NE(json.find("\"status\":\"unverified\""), std::string::npos);  // records: one compact line each
}

TEST(sweep_cli, bad_plans_and_flags_exit_2_before_any_work) {
  test::temp_dir dir;
  const std::string plan = std::string(KK3_FIXTURE_DIR) + "/sweep/small-plan.json";
  auto r = test::run_kk3tune({"sweep", "--config", plan, "--family", "nope", "--out", (dir.path() / "x.json").string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("has no family 'nope'"), std::string::npos) << r.output;
  r = test::run_kk3tune({"sweep", "--config", plan, "--out", "/nonexistent-folder/x.json"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--out /nonexistent-folder/x.json: cannot be written (no folder /nonexistent-folder)"), std::string::npos) << r.output;
  r = test::run_kk3tune({"sweep", "--config", (dir.path() / "missing.json").string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.json: missing"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kk3
