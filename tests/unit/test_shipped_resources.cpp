// The no-GPU resource report links to what ships (issue 44, item 3): an untimed sweep marks the
// variants the committed dispatch tables choose and at which token counts (sweep/shipped_marks),
// flags a shipped variant that spills, gives each variant's grid and waves per SM at the plan's
// token counts, and says which archs have no timed sweep, in its text summary
// (sweep/untimed_summary) and on its report page (report/html_resources.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"
#include "report/html_report.hpp"
#include "results/codec.hpp"
#include "results/reader.hpp"
#include "results/sweep_file.hpp"
#include "results/untimed_facts.hpp"
#include "support/test_support.hpp"
#include "sweep/shipped_marks.hpp"
#include "sweep/untimed_summary.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::contains;

/// The committed sweep the committed dispatch headers come from.
const fs::path& committed_sweep() {
  static const fs::path file =
      fs::path(KK3_RESULTS_DIR) / "h200" / "sweep-v5-2026-12-06" / "sweep.json.gz";
  return file;
}

/// The variant issue 44 names: it ships at attn_res post_nb5 T 1024 and post_nb7 T 1024 in the
/// committed tables (nowhere else).
const std::string k_tpc4 = "b1-gpw4-nc2-stage1-unroll1-stages2-tpc4-trigger1";

/// An arch's resources as an untimed sweep records them, on the arch's named GPU.
results::arch_resources resources(const std::string& arch, int spill_store, int spill_load) {
  results::arch_resources a;
  a.arch = arch;
  a.registers = 96;
  a.spill_store_bytes = spill_store;
  a.spill_load_bytes = spill_load;
  a.shared_bytes = 0;
  a.stack_bytes = 16;
  a.threads_per_cta = 256;
  a.target = arch == "sm_90a" ? "H200" : "B200";
  a.sm_count = arch == "sm_90a" ? 132 : 148;
  a.ctas_per_sm = 2;
  a.warps_per_sm = 16;
  a.occupancy = 0.25;
  a.limiter = "registers";
  return a;
}

/// A compile record of attn_res `mode` (NB `blocks`), compiled for sm_90a and sm_100a, with its
/// grid at T 1 and 1024 (1 and 256 CTAs).
results::record attn_res_record(const std::string& mode, long long blocks,
                                const std::string& variant, int spill_store, int spill_load) {
  results::record r;
  r.family = "attn_res";
  r.mode = mode;
  r.shape = {{"blocks", blocks}};
  r.variant = variant;
  r.status = results::status::unverified;
  r.resources = {resources("sm_90a", spill_store, spill_load), resources("sm_100a", 0, 0)};
  r.grids = {{1, 1}, {1024, 256}};
  return r;
}

/// An untimed sweep for sm_90a and sm_100a: the tpc4 variant spilling in post_nb5 and
/// post_nb7 (where it ships), a variant that ships nowhere spilling too, and the variant
/// the committed post_nb5 table chooses at T 1 to 8, marked by the committed tables.
results::result_set untimed_sweep() {
  results::result_set s;
  s.kind = "sweep";
  s.schema_version = 3;
  results::plan_block& p = s.plan.emplace();
  p.timed = false;
  p.config = "default.json";
  p.tokens = {1, 1024};
  p.archs = {"sm_90a", "sm_100a"};
  s.records = {
      attn_res_record("post_nb5", 5, k_tpc4, 4, 12),
      attn_res_record("post_nb5", 5, "b4-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1", 0, 0),
      attn_res_record("post_nb5", 5, "b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1", 8, 8),
      attn_res_record("post_nb7", 7, k_tpc4, 8, 4)};
  EXPECT_EQ(sweep::mark_shipped(committed_sweep(), s), "");
  return s;
}

TEST(shipped_resources, marks_the_variants_the_committed_tables_choose_and_where) {
  const results::result_set s = untimed_sweep();
  ASSERT_TRUE(s.plan->shipped);
  EXPECT_EQ(s.plan->shipped->file, committed_sweep().string());
  EXPECT_EQ(s.plan->shipped->arch, "sm_90a");
  EXPECT_EQ(s.plan->shipped->timed_archs, std::vector<std::string>{"sm_90a"});
  // post_nb5: the tpc4 variant at T 1024, b4-gpw1 at T 1-8; post_nb7: tpc4 at T 1024.
  const auto ships = [&](std::size_t i, std::size_t arch) {
    return results::ranges_text(s.records[i].resources[arch].ships);
  };
  EXPECT_EQ(ships(0, 0), "T 1024");
  EXPECT_EQ(ships(1, 0), "T 1-8");
  EXPECT_EQ(ships(2, 0), "") << "b2-gpw1 is not chosen in post_nb5";
  EXPECT_EQ(ships(3, 0), "T 1024");
  EXPECT_EQ(ships(0, 1), "") << "no committed table for sm_100a";
  EXPECT_TRUE(s.records[0].resources[0].ships_at(1024));
  EXPECT_FALSE(s.records[0].resources[0].ships_at(512));
  EXPECT_FALSE(s.records[0].resources[0].ships_at(2048));
  // Inside a range of several counts, and just past it.
  EXPECT_TRUE(s.records[1].resources[0].ships_at(1));
  EXPECT_TRUE(s.records[1].resources[0].ships_at(8));
  EXPECT_FALSE(s.records[1].resources[0].ships_at(16));

  // The marks and where they come from survive the file.
  test::temp_dir dir;
  const fs::path file = dir.path() / "untimed.json";
  write_file_atomic(file, results::sweep_file_text(s));
  const results::result_set back = results::read_result_set(file);
  ASSERT_TRUE(back.plan && back.plan->shipped);
  EXPECT_EQ(back.plan->shipped->git_revision, s.plan->shipped->git_revision);
  EXPECT_EQ(back.plan->shipped->timed_archs, std::vector<std::string>{"sm_90a"});
  EXPECT_EQ(results::ranges_text(back.records[1].resources[0].ships), "T 1-8");
  EXPECT_EQ(results::ranges_text(back.records[3].resources[0].ships), "T 1024");

  // Text: per family and arch how much ships, from which file; page: the column and the table.
  const std::string text = sweep::untimed_summary(s, "x.json", committed_sweep());
  for (const std::string& line :
       {"\nwhat ships: the committed dispatch tables, from " + committed_sweep().string() +
            " (NVIDIA H200, sm_90a, git ",
        std::string("  attn_res sm_90a: 3 of 4 variants chosen, at 3 ranges; waves per SM where "
                    "chosen 0.00379 to 0.97\n")}) {
    EXPECT_TRUE(contains(text, line)) << line << "\n" << text;
  }
  const std::string page = report::render_html_report(back).html;
  // post_nb5 ships two variants at a range each, post_nb7 one.
  for (const char* part :
       {"What the committed table ships", "and at how many ranges (click to sort)\">shipped</th>",
        ">2 at 2 ranges</td>", ">1 at 1 ranges</td>", "<td>T 1-8</td>", "<td>T 1024</td>",
        ">ships at</th>"}) {
    EXPECT_TRUE(contains(page, part)) << part;
  }
}

TEST(shipped_resources, a_shipped_variant_that_spills_is_said_plainly) {
  const results::result_set s = untimed_sweep();
  const std::vector<results::shipped_spill> spills = results::shipped_spills(s.records);
  ASSERT_EQ(spills.size(), 1u) << "b2-gpw1 spills but ships nowhere";
  EXPECT_EQ(spills[0].variant, k_tpc4);
  const std::string warning = "  warning: attn_res " + k_tpc4 +
                              " spills on sm_90a (H200) where it ships: spill stores 4 to 8 "
                              "bytes, loads 4 to 12 bytes; it ships at 2 ranges: post_nb5 "
                              "T 1024, post_nb7 T 1024\n";
  const std::string text = sweep::untimed_summary(s, "x.json", committed_sweep());
  EXPECT_TRUE(contains(text, warning)) << text;
  EXPECT_FALSE(contains(text, "no shipped variant spills")) << text;
  const std::string page = report::render_html_report(s).html;
  EXPECT_TRUE(contains(page, "<b>Shipped variants that spill:</b>")) << page;
  EXPECT_TRUE(contains(page, "<li><code>attn_res " + k_tpc4 +
                                 "</code> on sm_90a (H200): spill stores 4 to 8 bytes, loads 4 "
                                 "to 12 bytes where it ships, at 2 ranges: post_nb5 T 1024, "
                                 "post_nb7 T 1024</li>"))
      << page;

  // Without spills where it ships, the summary says so.
  results::result_set clean = s;
  for (results::record& r : clean.records) {
    for (results::arch_resources& a : r.resources) a.spill_store_bytes = a.spill_load_bytes = 0;
  }
  EXPECT_TRUE(contains(sweep::untimed_summary(clean, "x.json", committed_sweep()),
                       "  no shipped variant spills\n"));
}

TEST(shipped_resources, each_variant_has_its_grid_and_waves_per_sm_at_the_plans_counts) {
  // waves = CTAs / (SMs x CTAs per SM): 256 CTAs, 2 a SM on the H200's 132 SMs.
  const results::arch_resources h200 = resources("sm_90a", 0, 0);
  EXPECT_DOUBLE_EQ(h200.waves(256), 256.0 / 264);
  results::arch_resources none = h200;
  none.target.clear();
  EXPECT_EQ(none.waves(256), -1) << "no target, no waves";
  none = h200;
  none.ctas_per_sm = 0;
  EXPECT_EQ(none.waves(256), -1) << "no CTA fits";

  // The grid survives the journal's codec and the file's, as "grid_ctas".
  const results::record r = attn_res_record("post_nb5", 5, k_tpc4, 4, 12);
  const auto j = results::record_json(r, results::record_precision::full);
  EXPECT_EQ(j.at("grid_ctas").dump(), R"({"1":1,"1024":256})");
  const results::record back = results::record_from_json(j);
  ASSERT_EQ(back.grids.size(), 2u);
  EXPECT_EQ(back.grids[1].tokens, 1024);
  EXPECT_EQ(back.grids[1].ctas, 256);
  auto bad = j;
  bad["grid_ctas"] = {{"1024", 256}, {"1", 1}};
  EXPECT_THROW((void)results::record_from_json(bad), error) << "counts must ascend";
  bad["grid_ctas"] = {{"T1", 1}};
  EXPECT_THROW((void)results::record_from_json(bad), error) << "a key that is no count";

  // Text: the compact form, per family and arch; page: the table per variant and count, the
  // counts where it ships in bold.
  const results::result_set s = untimed_sweep();
  const std::string text = sweep::untimed_summary(s, "x.json", committed_sweep());
  EXPECT_TRUE(contains(text,
                       "occupancy on the H200 25.0% to 25.0%; waves per SM at the plan's "
                       "token counts 0.00379 to 0.97\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "occupancy on the B200 25.0% to 25.0%; waves per SM at the plan's "
                       "token counts 0.00338 to 0.865\n"))
      << text;
  const std::string page = report::render_html_report(s).html;
  for (const char* part :
       {"Grid and waves per SM at each token count (CTAs · waves on sm_90a · waves on sm_100a;",
        ">T=1024</th>", "<td class=\"num\">1 · 0.00379 · 0.00338</td>",
        "<td class=\"num\"><b>256 · 0.97 · 0.865</b></td>"}) {
    EXPECT_TRUE(contains(page, part)) << part;
  }
}

TEST(shipped_resources, an_arch_without_a_timed_sweep_is_said_to_be_informative_only) {
  const results::result_set s = untimed_sweep();
  const std::string text = sweep::untimed_summary(s, "x.json", committed_sweep());
  EXPECT_TRUE(contains(text,
                       "  sm_100a: no timed sweep: the committed headers' select() returns the "
                       "reference variant there, so its occupancy and waves above are "
                       "informative only\n"))
      << text;
  EXPECT_FALSE(contains(text, "  sm_90a: no timed sweep")) << text;
  const std::string page = report::render_html_report(s).html;
  EXPECT_TRUE(contains(page,
                       "<p><b>sm_100a: no timed sweep.</b> The committed headers' select() "
                       "returns the reference variant there"))
      << page;
  EXPECT_TRUE(contains(page, "<td class=\"num\">no timed sweep</td>")) << page;

  // Without committed tables nothing is marked, and the text says so instead of guessing.
  results::result_set unmarked = s;
  unmarked.plan->shipped.reset();
  for (results::record& r : unmarked.records) {
    for (results::arch_resources& a : r.resources) a.ships.clear();
  }
  EXPECT_EQ(sweep::mark_shipped(fs::path(), unmarked), "");
  EXPECT_FALSE(unmarked.plan->shipped);
  EXPECT_TRUE(contains(sweep::untimed_summary(unmarked, "x.json", {}),
                       "\nwhat ships: no committed dispatch tables were found beside the configs"));
  test::temp_dir dir;
  const fs::path damaged = dir.path() / "sweep.json";
  test::write_text(damaged, "{\"schema_version\": 3,");
  const std::string why = sweep::mark_shipped(damaged, unmarked);
  EXPECT_TRUE(contains(why, damaged.string())) << why;
  EXPECT_FALSE(unmarked.plan->shipped);
  EXPECT_TRUE(contains(sweep::untimed_summary(unmarked, "x.json", damaged, why),
                       "\nwhat ships: not marked: " + why));
}

// The sweep itself, without a GPU: the file carries the marks and the grids, and the summary the
// lines above. Its plan, written here: two mla_decode_epilogue variants besides the reference, one
// that the committed tables choose (bf16 T 192-8192; fp8 T 128-384 and 2048-8192) and one they
// choose nowhere, and an attn_res variant they choose nowhere (the reference ships nowhere in the
// committed mla tables, so the shared fixture small-plan.json would mark nothing).
TEST(shipped_resources, the_untimed_sweep_marks_its_file_and_its_summary) {
  const std::string shipped =
      "split1-unroll3-early_reads0-cache_wait1-rows_per_warp1-trigger_early1-threads128";
  test::temp_dir dir;
  const fs::path plan = dir.path() / "plan.json";
  test::write_text(plan, R"({
  "families": {
    "mla_decode_epilogue": {"modes": ["bf16", "fp8"], "heads": [16],
                            "variants": [")" +
                             shipped + R"(",
                                         "split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128"]},
    "attn_res": {"modes": ["common_nb1"], "variants": ["b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"]}
  },
  "tokens": [1, 64, 65, 1024],
  "selection": {"min_gain": 0.02},
  "verify": {"tokens": [65]}
})");
  const fs::path out = dir.path() / "sweep.json";
  const auto r = test::run_kk3tune({"sweep", "--config", plan.string(), "--out", out.string(),
                                    "--cache-dir", (dir.path() / "cache").string()},
                                   {test::k_no_driver});
  ASSERT_EQ(r.exit_code, 3) << r.output;
  for (const char* line :
       {"\nwhat ships: the committed dispatch tables, from ",
        "  mla_decode_epilogue sm_90a: 2 of 6 variants chosen, at 3 ranges; waves per SM where "
        "chosen ",
        "  attn_res sm_90a: 0 of 2 variants chosen, at 0 ranges\n",
        "  sm_100a: no timed sweep: the committed headers' select() returns the reference",
        "waves per SM at the plan's token counts "}) {
    EXPECT_TRUE(contains(r.output, line)) << line << "\n" << r.output;
  }
  const results::result_set s = results::read_result_set(out);
  ASSERT_TRUE(s.plan && s.plan->shipped);
  EXPECT_EQ(s.plan->shipped->timed_archs, std::vector<std::string>{"sm_90a"});
  // The marks come from the sweep the committed headers were emitted from: the revision it was
  // swept at is the one their provenance names.
  const std::string header = read_file(fs::path(KK3_RESULTS_DIR) / "h200" / "dispatch" / "kk3tune" /
                                       "dispatch" / "mla_decode_epilogue.h");
  EXPECT_TRUE(contains(header, "(git " + s.plan->shipped->git_revision + ")"))
      << s.plan->shipped->file << " (git " << s.plan->shipped->git_revision
      << ") is not the sweep the committed headers come from";
  ASSERT_EQ(s.records.size(), 8u) << "3 mla variants in 2 modes, attn_res's and its reference";
  for (const results::record& rec : s.records) {
    ASSERT_EQ(rec.grids.size(), 4u) << rec.variant << ": a grid at each of the plan's 4 counts";
    EXPECT_EQ(rec.grids.front().tokens, 1);
    EXPECT_GT(rec.grids.back().ctas, rec.grids.front().ctas) << rec.variant;
    // Only `shipped` is chosen, on sm_90a (the committed tables).
    std::string where;
    if (rec.family == "mla_decode_epilogue" && rec.variant == shipped)
      where = rec.mode == "bf16" ? "T 192-8192" : "T 128-384, 2048-8192";
    for (const results::arch_resources& a : rec.resources) {
      EXPECT_EQ(results::ranges_text(a.ships), a.arch == "sm_90a" ? where : "")
          << rec.variant << " " << rec.mode << " " << a.arch;
    }
  }
}

}  // namespace
}  // namespace kk3
