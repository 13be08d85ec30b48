// A new user's first hour (issue 34's list): `time` and `sweep` speak one language, --variant
// takes globs and knob filters, the plan preview, mistyped fields and the small things. Each
// case runs the kk3tune binary with the driver hidden, or the code it calls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "core/error.hpp"
#include "core/gzip.hpp"
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

TEST(first_hour, a_timing_mode_given_to_mode_points_at_timing) {
  for (const auto& args :
       {std::vector<std::string>{"time", "--family", "attn_res", "--mode", "chain", "-T", "1"},
        std::vector<std::string>{"profile", "--family", "attn_res", "--mode", "cold"},
        std::vector<std::string>{"verify", "--family", "attn_res", "--mode", "graph"},
        std::vector<std::string>{"sweep", "--mode", "common_nb8,isolated", "--dry-run"}}) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "is a timing mode")) << r.output;
    EXPECT_TRUE(contains(r.output, "--timing")) << r.output;
  }
  // With one family named, the hint lists its modes.
  const auto r =
      run_kk3tune({"time", "--family", "attn_res", "--mode", "chain", "-T", "1"}, {k_no_driver});
  EXPECT_TRUE(contains(r.output, "give it as --timing chain")) << r.output;
  EXPECT_TRUE(contains(r.output, "--mode takes attn_res's modes: write_nb0, ")) << r.output;
}

TEST(first_hour, a_misspelt_mode_suggests_the_nearest_of_both_lists) {
  // Nearest a timing mode: points at --timing.
  const auto timing =
      run_kk3tune({"time", "--family", "attn_res", "--mode", "chian", "-T", "1"}, {k_no_driver});
  EXPECT_EQ(timing.exit_code, 2) << timing.output;
  EXPECT_TRUE(contains(timing.output, "has no mode 'chian'")) << timing.output;
  EXPECT_TRUE(contains(timing.output, "did you mean --timing chain?")) << timing.output;
  // Nearest a family's mode: names it.
  const auto family = run_kk3tune(
      {"verify", "--family", "attn_res", "--mode", "comon_nb8", "-T", "1"}, {k_no_driver});
  EXPECT_EQ(family.exit_code, 2) << family.output;
  EXPECT_TRUE(contains(family.output, "did you mean common_nb8?")) << family.output;
  // Nothing near: no guess.
  const auto none =
      run_kk3tune({"time", "--family", "attn_res", "--mode", "zzzzzzzz", "-T", "1"}, {k_no_driver});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_FALSE(contains(none.output, "did you mean")) << none.output;
}

TEST(first_hour, sweep_takes_timing_and_it_changes_what_is_swept) {
  test::temp_dir dir;
  const auto r = run_kk3tune({"sweep", "--timing", "chian", "--dry-run"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const auto ok = run_kk3tune(
      {"sweep", "--timing", "graph", "--family", "attn_res", "--mode", "common_nb8", "--dry-run"},
      {k_no_driver});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

TEST(first_hour, help_of_time_and_sweep_agree_on_mode_and_timing) {
  for (const char* cmd : {"time", "sweep"}) {
    const auto r = run_kk3tune({cmd, "--help"});
    EXPECT_TRUE(contains(r.output, "--timing")) << r.output;
    EXPECT_FALSE(contains(r.output, "or a timing mode")) << r.output;
    EXPECT_FALSE(contains(r.output, "as time's --mode")) << r.output;
  }
  const auto profile = run_kk3tune({"profile", "--help"});
  EXPECT_FALSE(contains(profile.output, "time also takes")) << profile.output;
}

TEST(first_hour, variant_selection_takes_ids_globs_and_knob_filters) {
  const families::family_space s =
      families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR);
  const auto glob = space::select_variants(s.variants, s.config, "b1-*");
  ASSERT_FALSE(glob.empty());
  for (const space::variant* v : glob) EXPECT_EQ(v->value("B"), 1) << v->id;
  const auto knob = space::select_variants(s.variants, s.config, "GPW=4");
  ASSERT_FALSE(knob.empty());
  for (const space::variant* v : knob) EXPECT_EQ(v->value("GPW"), 4) << v->id;
  // Ids and globs add; knob filters all hold.
  const auto both = space::select_variants(s.variants, s.config, "b1-*,GPW=4,NC=2");
  ASSERT_FALSE(both.empty());
  for (const space::variant* v : both) {
    EXPECT_EQ(v->value("B"), 1);
    EXPECT_EQ(v->value("GPW"), 4);
    EXPECT_EQ(v->value("NC"), 2);
  }
  EXPECT_LT(both.size(), knob.size());
  const auto ref = space::select_variants(s.variants, s.config, "reference");
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_TRUE(ref.front()->is_reference);
  EXPECT_EQ(space::select_variants(s.variants, s.config, "all").size(), s.variants.size());
  EXPECT_THROW(static_cast<void>(space::select_variants(s.variants, s.config, "zz*")), error);
  EXPECT_THROW(static_cast<void>(space::select_variants(s.variants, s.config, "FOO=1")), error);
  EXPECT_THROW(static_cast<void>(space::select_variants(s.variants, s.config, "GPW=x")), error);
  EXPECT_THROW(static_cast<void>(space::select_variants(s.variants, s.config, "GPW=3")), error);
  EXPECT_THROW(static_cast<void>(space::select_variants(s.variants, s.config, "nope")), error);
}

TEST(first_hour, profile_refuses_a_selection_of_several) {
  // GPW=4 selects several variants of the space (not one, which profile would take).
  const families::family_space s =
      families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR);
  ASSERT_GT(space::select_variants(s.variants, s.config, "GPW=4").size(), 1u);
  const auto r =
      run_kk3tune({"profile", "--family", "attn_res", "--mode", "common_nb8", "--variant", "GPW=4"},
                  {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "this command takes one")) << r.output;
}

TEST(first_hour, dry_run_previews_without_compiling_or_writing) {
  test::temp_dir dir;
  const fs::path cache = dir.path() / "cache";
  const fs::path out = dir.path() / "o.json";
  const auto r =
      run_kk3tune({"sweep", "--dry-run", "--family", "attn_res", "--mode", "common_nb8,post_nb8",
                   "--variant", "b1-*", "--cache-dir", cache.string(), "--out", out.string()},
                  {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "dry run")) << r.output;
  EXPECT_TRUE(contains(r.output, "common_nb8")) << r.output;
  EXPECT_TRUE(contains(r.output, "post_nb8")) << r.output;
  EXPECT_TRUE(contains(r.output, "compile time on this machine")) << r.output;
  EXPECT_TRUE(contains(r.output, "GPU time")) << r.output;
  EXPECT_TRUE(contains(r.output, "0 already in the compile cache")) << r.output;
  EXPECT_FALSE(fs::exists(out));
  std::error_code ec;
  EXPECT_TRUE(!fs::exists(cache, ec) || fs::is_empty(cache, ec)) << "the preview compiled";
}

TEST(first_hour, emit_refuses_a_mistyped_record_field) {
  test::temp_dir dir;
  const fs::path committed =
      fs::path(KK3_RESULTS_DIR) / "h200" / "sweep-v5-2026-12-06" / "sweep.json.gz";
  auto doc = nlohmann::json::parse(maybe_gunzip(committed, read_file(committed)));
  doc["records"][0]["tokens"] = "64";
  const fs::path bad = dir.path() / "bad.json";
  test::write_text(bad, doc.dump());
  const auto r =
      run_kk3tune({"emit", bad.string(), "--out", (dir.path() / "inc").string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "/records/0/tokens: expected an integer")) << r.output;
  EXPECT_FALSE(fs::exists(dir.path() / "inc" / "kk3tune"));
}

TEST(first_hour, list_prints_nothing_before_a_broken_config) {
  test::temp_dir dir;
  fs::copy(KK3_CONFIG_DIR, dir.path() / "configs", fs::copy_options::recursive);
  test::write_text(dir.path() / "configs" / "attn_res.json", "{ broken");
  const auto r =
      run_kk3tune({"--config-dir", (dir.path() / "configs").string(), "list"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(contains(r.output, "mla_decode_epilogue:")) << r.output;
}

TEST(first_hour, the_small_things) {
  EXPECT_TRUE(contains(run_kk3tune({"help", "emit"}).output, "Usage: kk3tune emit"));
  for (const char* cmd : {"merge", "emit", "report"})
    EXPECT_TRUE(contains(run_kk3tune({cmd, "--help"}).output, "Exit codes:")) << cmd;
  const auto heads = run_kk3tune({"verify", "--help"});
  EXPECT_TRUE(contains(heads.output, "--heads INT:POSITIVE")) << heads.output;
  const auto zero =
      run_kk3tune({"verify", "--family", "mla_decode_epilogue", "--heads", "0"}, {k_no_driver});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_TRUE(contains(zero.output, "--heads: '0': expected a positive integer")) << zero.output;
  test::temp_dir dir;
  const auto proc = run_kk3tune({"emit", "--out", "/proc/kk3-no-such"}, {k_no_driver});
  EXPECT_EQ(proc.exit_code, 2) << proc.output;
  EXPECT_TRUE(contains(proc.output, "takes no new folder")) << proc.output;
}

}  // namespace
}  // namespace kk3
