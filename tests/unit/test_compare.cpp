// `kk3tune compare` (src/compare): the verdicts on the committed fixture pairs
// (tests/fixtures/compare, written by make_fixtures.py there), the rules behind them, and the
// command's exit codes and key lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "compare/comparison_json.hpp"
#include "compare/comparison_text.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/reader.hpp"
#include "support/test_support.hpp"

namespace kk3::compare {
namespace {

namespace fs = std::filesystem;
using results::read_result_set;
using results::record;
using results::result_set;

const fs::path k_dir = fs::path(KK3_FIXTURE_DIR) / "compare";
const std::string k_s3 =
    "split3-unroll1-early_reads1-cache_wait1-rows_per_warp1-trigger_early1-threads256";
const std::string k_s2 =
    "split2-unroll1-early_reads1-cache_wait1-rows_per_warp1-trigger_early0-threads128";

result_set fixture(const std::string& name) {
  return read_result_set(k_dir / name);
}

comparison compare_fixtures(const std::string& base, const std::string& next,
                            compare_options o = {}) {
  return compare_documents(fixture(base), fixture(next), o);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the comparison itself ---------------------------------------------------------------------

TEST(compare, identical_files_are_the_same) {
  for (const char* name : {"time-base.json", "sweep-base.json"}) {
    const comparison c = compare_fixtures(name, name);
    EXPECT_EQ(c.counts.matched, c.base.records) << name;
    EXPECT_EQ(c.counts.same, c.counts.matched) << name;
    EXPECT_EQ(c.counts.dispatch_entries_changed, 0u) << name;
    EXPECT_TRUE(c.verification.empty()) << name;
    EXPECT_EQ(c.exit_code(), 0) << name;
    for (const auto& r : c.records) {
      ASSERT_TRUE(r.timing);
      EXPECT_EQ(r.timing->effect, 0.0);
      EXPECT_EQ(r.timing->p_value, 1.0) << "identical samples";
    }
  }
}

TEST(compare, a_ten_percent_slowdown_is_slower) {
  for (const char* pair : {"time", "sweep"}) {
    const comparison c =
        compare_fixtures(std::string(pair) + "-base.json", std::string(pair) + "-slow.json");
    EXPECT_EQ(c.counts.slower, 1u) << pair;
    EXPECT_EQ(c.exit_code(), 1) << pair;
    ASSERT_FALSE(c.records.empty());
    const record_comparison& worst = c.records.front();  // regressions come first
    EXPECT_EQ(worst.id.variant, k_s3);
    EXPECT_EQ(worst.id.tokens, 64);
    ASSERT_TRUE(worst.timing);
    EXPECT_EQ(worst.timing->result, verdict::slower);
    EXPECT_NEAR(worst.timing->effect, 0.10, 0.02);
    EXPECT_EQ(worst.timing->test, test_kind::mann_whitney) << "20 consistent samples on each side";
    EXPECT_LT(worst.timing->p_value, 1e-6);
  }
}

TEST(compare, the_slowed_sweep_moves_its_dispatch_range) {
  const comparison c = compare_fixtures("sweep-base.json", "sweep-slow.json");
  EXPECT_EQ(c.counts.dispatch_entries_changed, 1u);
  ASSERT_EQ(c.dispatch.size(), 1u);
  EXPECT_EQ(c.dispatch[0].entry, "mla_decode_epilogue/bf16/H=16");
  EXPECT_EQ(c.dispatch[0].tokens, "T64");
  EXPECT_EQ(c.dispatch[0].base, "T64 " + k_s3);
  EXPECT_EQ(c.dispatch[0].next,
            "split1-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128");
}

TEST(compare, noise_alone_is_no_regression) {
  const comparison t = compare_fixtures("time-base.json", "time-noise.json");
  EXPECT_EQ(t.exit_code(), 0);
  EXPECT_EQ(t.counts.slower + t.counts.faster, 0u);
  // The kernel with ~20% spread moved its median by ~7%: beyond the threshold, not significant.
  EXPECT_EQ(t.counts.noisy, 1u);
  ASSERT_TRUE(t.records.front().timing);
  EXPECT_EQ(t.records.front().id.variant, k_s2);
  EXPECT_EQ(t.records.front().timing->result, verdict::noisy);
  EXPECT_GT(t.records.front().timing->p_value, 0.05);

  const comparison s = compare_fixtures("sweep-base.json", "sweep-noise.json");
  EXPECT_EQ(s.exit_code(), 0);
  EXPECT_EQ(s.counts.same, s.counts.matched);
  // T128 is only in NEW: listed and counted, not a regression.
  EXPECT_EQ(s.counts.only_in_new, 3u);
  EXPECT_EQ(s.counts.only_in_base, 0u);
  for (const auto& r : s.only_in_new) EXPECT_EQ(r.id.tokens, 128);
}

TEST(compare, a_verification_regression_fails) {
  const comparison c = compare_fixtures("sweep-base.json", "sweep-verify.json");
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_EQ(c.counts.slower, 0u);
  ASSERT_EQ(c.verification.size(), 1u);
  EXPECT_EQ(c.verification[0].id.variant, k_s2);
  EXPECT_EQ(c.verification[0].id.tokens, 1);
  EXPECT_EQ(c.verification[0].base_status, results::status::ok);
  EXPECT_EQ(c.verification[0].new_status, results::status::mismatch);
  EXPECT_TRUE(contains(c.verification[0].detail, "mqa_q[4660]"));
  // The other way round it is a fix, not a regression.
  EXPECT_EQ(compare_fixtures("sweep-verify.json", "sweep-base.json").exit_code(), 0);
}

// `d` with the record of `variant` at T=`tokens` made unmeasured: this status and reason, no
// statistics or samples (as the sweep records a fault, a timeout or an unlaunchable variant).
result_set with_unmeasured(result_set d, const std::string& variant, long long tokens,
                           results::status status, const std::string& reason) {
  bool changed = false;
  for (auto& r : d.records) {
    if (r.variant != variant || r.tokens != tokens) continue;
    r.status = status;
    r.reason = reason;
    r.verified.reset();
    r.stats.reset();
    r.samples_us.clear();
    changed = true;
  }
  EXPECT_TRUE(changed) << variant << " T" << tokens;
  return d;
}

TEST(compare, a_variant_that_now_hangs_or_faults_is_a_regression) {
  // A finalist that was ok in BASE and that the supervisor recorded as timeout or launch_failed
  // in NEW (issue 8: no statistics, the reason from the watchdog or the driver).
  for (const results::status status : {results::status::timeout, results::status::launch_failed}) {
    const result_set base = fixture("sweep-base.json");
    const result_set next = with_unmeasured(
        base, k_s3, 1, status, "its GPU work ran 61.0 s, beyond --variant-timeout 60.0 s");
    const comparison c = compare_documents(base, next, {});
    EXPECT_EQ(c.exit_code(), 1) << results::to_text(status);
    ASSERT_EQ(c.verification.size(), 1u) << results::to_text(status);
    EXPECT_EQ(c.verification[0].new_status, status);
    EXPECT_EQ(c.verification[0].base_status, results::status::ok);
  }
}

TEST(compare, an_unlaunchable_variant_regresses_only_where_it_ran_before) {
  const std::string why =
      "unlaunchable at T1-H16: needs 240 KiB of shared memory per CTA (0 KiB static, "
      "240 KiB dynamic), the device allows 227 KiB";
  const result_set base = fixture("sweep-base.json");
  // ok in BASE (a verified finalist), unlaunchable now: a regression, like launch_failed.
  const comparison ok_before = compare_documents(
      base, with_unmeasured(base, k_s3, 1, results::status::unlaunchable, why), {});
  EXPECT_EQ(ok_before.exit_code(), 1);
  ASSERT_EQ(ok_before.verification.size(), 1u);
  EXPECT_EQ(ok_before.verification[0].base_status, results::status::ok);
  EXPECT_EQ(ok_before.verification[0].new_status, results::status::unlaunchable);
  EXPECT_EQ(ok_before.verification[0].detail, why);
  // Screened out in BASE (so it launched there), unlaunchable now: a regression too.
  const comparison ran_before = compare_documents(
      base, with_unmeasured(base, k_s2, 64, results::status::unlaunchable, why), {});
  ASSERT_EQ(ran_before.verification.size(), 1u);
  EXPECT_EQ(ran_before.verification[0].base_status, results::status::dropped);
  // Unlaunchable in both: matched, not timed in both, no regression; unlaunchable in BASE only: a
  // fix.
  const result_set both = with_unmeasured(base, k_s3, 1, results::status::unlaunchable, why);
  const comparison same = compare_documents(both, both, {});
  EXPECT_EQ(same.exit_code(), 0);
  EXPECT_TRUE(same.verification.empty());
  EXPECT_EQ(same.counts.untimed, 1u);
  EXPECT_EQ(compare_documents(both, base, {}).exit_code(), 0);
  // A finalist whose verification found it unlaunchable at a verification shape.
  result_set verified = base;
  for (auto& r : verified.records) {
    if (r.variant == k_s3 && r.tokens == 1)
      r.verified = results::verification{results::status::unlaunchable};
  }
  const comparison at_verification = compare_documents(base, verified, {});
  ASSERT_EQ(at_verification.verification.size(), 1u);
  EXPECT_EQ(at_verification.verification[0].new_status, results::status::unlaunchable);
}

TEST(compare, another_gpu_is_refused_unless_allowed) {
  try {
    compare_fixtures("time-base.json", "time-other-gpu.json");
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::input);
    EXPECT_TRUE(contains(e.what(), "NVIDIA H200")) << e.what();
    EXPECT_TRUE(contains(e.what(), "NVIDIA B200")) << e.what();
    EXPECT_TRUE(contains(e.what(), "--allow-device-mismatch")) << e.what();
  }
  compare_options o;
  o.allow_device_mismatch = true;
  const comparison c = compare_fixtures("time-base.json", "time-other-gpu.json", o);
  EXPECT_EQ(c.exit_code(), 0);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_TRUE(contains(c.notes[0], "compared anyway"));
}

TEST(compare, two_kinds_are_refused) {
  try {
    compare_fixtures("sweep-base.json", "time-base.json");
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::input);
    EXPECT_TRUE(contains(e.what(), "compare needs two results of one kind")) << e.what();
  }
}

// Scales the statistics of every record (not the samples), as a hand edit would.
result_set with_scaled_statistics(result_set d, double factor) {
  for (auto& r : d.records) {
    auto& s = *r.stats;
    for (double* v : {&s.min, &s.median, &s.mean, &s.p10, &s.p90, &s.max, &s.stdev, &s.iqr}) {
      *v *= factor;
    }
  }
  return d;
}

TEST(compare, statistics_are_the_truth_when_the_samples_disagree) {
  const result_set base = fixture("time-base.json");
  const comparison c = compare_documents(base, with_scaled_statistics(base, 1.25), {});
  EXPECT_EQ(c.exit_code(), 1);
  for (const auto& r : c.records) {
    ASSERT_TRUE(r.timing);
    EXPECT_NEAR(r.timing->effect, 0.25, 1e-9);
    EXPECT_EQ(r.timing->test, test_kind::intervals);
    EXPECT_TRUE(contains(r.timing->test_note, "samples disagree with its statistics"))
        << r.timing->test_note;
  }
  // The noisy kernel's interval (20% spread) still clears a 25% move; the others easily do.
  EXPECT_EQ(c.counts.slower, 3u);
}

TEST(compare, a_screened_record_is_at_most_noisy) {
  // sweep-base has MLA_S2 at T64 dropped after screening (2 samples); NEW screens it 20% slower.
  // Screening rounds cannot tell one sweep from another: noisy, with the effect, no regression.
  const result_set base = fixture("sweep-base.json");
  result_set next = base;
  for (auto& r : next.records) {
    if (r.variant != k_s2 || r.tokens != 64) continue;
    ASSERT_EQ(r.status, results::status::dropped);
    ASSERT_EQ(r.samples_us.size(), 2u);
    r.stats->median *= 1.2;
    for (double& x : r.samples_us) x *= 1.2;
  }
  const comparison c = compare_documents(base, next, {});
  const auto it = std::find_if(c.records.begin(), c.records.end(), [](const record_comparison& r) {
    return r.id.variant == k_s2 && r.id.tokens == 64;
  });
  ASSERT_NE(it, c.records.end());
  ASSERT_TRUE(it->timing);
  EXPECT_EQ(it->timing->test, test_kind::intervals);
  EXPECT_NEAR(it->timing->effect, 0.2, 1e-9);
  EXPECT_EQ(it->timing->result, verdict::noisy);
  EXPECT_EQ(it->timing->test_note, "screened out in both: too few samples to call");
  EXPECT_FALSE(c.regression());
  // A note on the record listing: shown with it (--all), not in the default verdict on the tables.
  ASSERT_FALSE(c.record_notes.empty());
  EXPECT_NE(c.record_notes.back().find("count as noisy"), std::string::npos);
  listing_options all;
  all.all = true;
  EXPECT_TRUE(contains(format_table(c, all), "count as noisy"));
  EXPECT_FALSE(contains(format_table(c, {}), "count as noisy"));
}

TEST(compare, a_screening_measurement_is_not_compared_with_a_final_one) {
  const result_set base = fixture("sweep-base.json");
  result_set next = base;
  for (auto& r : next.records) {
    if (r.variant != k_s2 || r.tokens != 64) continue;
    ASSERT_EQ(r.status, results::status::dropped);
    r.status = results::status::ok;
    r.verified = results::verification{results::status::ok};
    r.stats->median *= 1.2;
    r.samples_us.assign(20, r.stats->median);
  }
  const comparison c = compare_documents(base, next, {});
  const auto it = std::find_if(c.records.begin(), c.records.end(), [](const record_comparison& r) {
    return r.id.variant == k_s2 && r.id.tokens == 64;
  });
  ASSERT_NE(it, c.records.end());
  EXPECT_FALSE(it->timing);
  EXPECT_FALSE(c.regression());
  ASSERT_FALSE(c.record_notes.empty());
  EXPECT_NE(c.record_notes.back().find("not like for like"), std::string::npos);
}

TEST(compare, times_under_another_objective_are_not_comparable) {
  // The cases: a graph-mode file against an isolated one (+108% "REGRESSION" before),
  // PDL on against off, and two chain models: listed as not comparable, never a regression.
  for (const char* name : {"time-base.json", "sweep-base.json"}) {
    const result_set base = fixture(name);
    auto with = [&](const std::function<void(results::objective&)>& change) {
      result_set next = base;
      for (auto& r : next.records) {
        change(r.objective);
        if (r.stats) r.stats->median *= 2.08;
        for (double& x : r.samples_us) x *= 2.08;
      }
      return compare_documents(base, next, {});
    };
    for (const auto& [change, why] :
         std::vector<std::pair<std::function<void(results::objective&)>, std::string>>{
             {[](results::objective& o) { o.mode = results::timing_mode::isolated; },
              "timing graph vs isolated"},
             {[](results::objective& o) { o.pdl = false; }, "PDL on vs off"}}) {
      const comparison c = with(change);
      EXPECT_FALSE(c.regression()) << name << ": " << why;
      EXPECT_EQ(c.counts.slower, 0u) << name;
      EXPECT_EQ(c.counts.not_comparable, c.base.timed_records) << name << ": " << why;
      const auto it = std::find_if(c.records.begin(), c.records.end(),
                                   [](const auto& r) { return !r.not_comparable.empty(); });
      ASSERT_NE(it, c.records.end());
      EXPECT_EQ(it->not_comparable, why);
      listing_options all;
      all.all = true;
      EXPECT_TRUE(contains(format_table(c, all), "Not comparable")) << format_table(c, all);
      EXPECT_TRUE(contains(c.records_line(), "not comparable"));
      if (c.shipped_verdict) {
        // Two sweeps timed under different objectives: no count can be judged, so no verdict at
        // all (exit 2: make the baseline again), never a pass.
        EXPECT_EQ(c.shipped_totals.untimed, c.shipped_totals.compared) << why;
        EXPECT_EQ(c.exit_code(), 2) << why;
        EXPECT_TRUE(contains(c.summary_line(), "NO VERDICT")) << c.summary_line();
        EXPECT_TRUE(contains(format_table(c, {}), "timed under different objectives"))
            << format_table(c, {});
      } else {
        EXPECT_EQ(c.exit_code(), 0) << why;
      }
    }
  }
  // Two chain models differ in what the producer is.
  result_set base = fixture("time-base.json"), next = base;
  for (auto& r : base.records) r.objective.mode = results::timing_mode::chain;
  for (auto& r : next.records) {
    r.objective.mode = results::timing_mode::chain;
    r.objective.chain.producer.duration_us = 8;
  }
  const comparison c = compare_documents(base, next, {});
  ASSERT_FALSE(c.records.empty());
  EXPECT_EQ(c.records.front().not_comparable, "producer duration_us 5 vs 8");
  // The same chain model, described differently, is comparable.
  for (auto& r : next.records) {
    r.objective.chain.producer.duration_us = 5;
    r.objective.chain.producer.stands_for = "another description";
  }
  EXPECT_EQ(compare_documents(base, next, {}).counts.not_comparable, 0u);
}

TEST(compare, both_files_machine_figures_are_shown) {
  result_set base = fixture("time-base.json"), next = base;
  base.context.copy_ceiling_tb_s = 4.229;
  base.context.empty_kernel_us = 0.541;
  next.context.copy_ceiling_tb_s = 3.1;
  const comparison c = compare_documents(base, next, {});
  const std::string text = format_table(c, {});
  EXPECT_TRUE(contains(text, "4.229 TB/s copy, 0.541 us empty kernel")) << text;
  EXPECT_TRUE(contains(text, "3.100 TB/s copy, empty kernel ?")) << text;
  const auto j = nlohmann::json::parse(compare::comparison_json(c));
  EXPECT_EQ(j["base"]["figures"]["copy_ceiling_tb_s"], 4.229);
  EXPECT_TRUE(j["new"]["figures"]["empty_kernel_us"].is_null());
}

TEST(compare, machines_whose_figures_differ_beyond_the_noise_floor_are_flagged) {
  // The figures of two H200 machines (results/h200/result-model-2026-12-03): 0.627 us and 4.203
  // TB/s for the baseline's, 0.632 us for one alike (+0.8%), 0.662 us for one that is not
  // (+5.6%, beyond the plans' 1.5% floor).
  result_set base = fixture("sweep-base.json"), alike = base, other = base;
  base.context.empty_kernel_us = 0.627;
  base.context.copy_ceiling_tb_s = 4.203;
  alike.context.empty_kernel_us = 0.632;
  alike.context.copy_ceiling_tb_s = 4.228;
  other.context.empty_kernel_us = 0.662;
  other.context.copy_ceiling_tb_s = 4.228;

  const comparison same = compare_documents(base, alike, {});
  EXPECT_TRUE(same.machine.known);
  EXPECT_FALSE(same.machine.differ);
  EXPECT_EQ(same.machine.floor, 0.015);
  EXPECT_FALSE(contains(same.summary_line(), "machines that differ")) << same.summary_line();

  const comparison c = compare_documents(base, other, {});
  EXPECT_TRUE(c.machine.differ);
  ASSERT_TRUE(c.machine.empty_kernel_change);
  EXPECT_NEAR(*c.machine.empty_kernel_change, 0.662 / 0.627 - 1, 1e-12);
  EXPECT_EQ(c.exit_code(), 0) << "the flag changes no verdict";
  EXPECT_TRUE(contains(c.summary_line(), "(on machines that differ: see the notes)"));
  const std::string text = format_table(c, {});
  EXPECT_TRUE(contains(text, "the empty-kernel launch 0.627 -> 0.662 us (+5.6%)")) << text;
  EXPECT_TRUE(contains(text, "the copy ceiling 4.203 -> 4.228 TB/s (+0.6%)")) << text;
  const auto j = nlohmann::json::parse(compare::comparison_json(c));
  EXPECT_EQ(j["machines"]["differ"], true);
  EXPECT_EQ(j["machines"]["noise_floor"], 0.015);

  // A file without figures (written before they were measured): nothing to flag.
  result_set bare = base;
  bare.context.empty_kernel_us = 0;
  bare.context.copy_ceiling_tb_s = 0;
  const comparison unknown = compare_documents(bare, other, {});
  EXPECT_FALSE(unknown.machine.known);
  EXPECT_FALSE(unknown.machine.differ);
  EXPECT_TRUE(
      nlohmann::json::parse(compare::comparison_json(unknown))["machines"]["empty_kernel_change"]
          .is_null());
}

TEST(compare, thresholds_and_the_worst_first) {
  result_set base = fixture("time-base.json");
  result_set next = base;
  // +8% on one, +30% on another: both slower at 5%, the +30% listed first; at 10%, only it.
  next.records[0].stats->median *= 1.08;
  for (double& v : next.records[0].samples_us) v *= 1.08;
  next.records[1].stats->median *= 1.30;
  for (double& v : next.records[1].samples_us) v *= 1.30;
  const comparison c = compare_documents(base, next, {});
  ASSERT_EQ(c.counts.slower, 2u);
  EXPECT_EQ(c.records[0].id.variant, base.records[1].variant);
  EXPECT_EQ(c.records[1].id.variant, base.records[0].variant);
  compare_options o;
  o.timing.threshold = 0.10;
  EXPECT_EQ(compare_documents(base, next, o).counts.slower, 1u);
  // Faster is never a regression.
  EXPECT_EQ(compare_documents(next, base, {}).counts.faster, 2u);
  EXPECT_EQ(compare_documents(next, base, {}).exit_code(), 0);
}

// An untimed sweep (compiled only, no GPU) has nothing to compare: an input error naming it,
// never "lost" tables or a regression.
TEST(compare, untimed_sweeps_are_refused) {
  result_set base = fixture("sweep-base.json");
  result_set untimed = base;
  if (!untimed.plan) untimed.plan.emplace();
  untimed.plan->timed = false;
  untimed.context.gpu.name.clear();
  untimed.dispatch.clear();
  for (auto& r : untimed.records) {
    r.status = results::status::unverified;
    r.verified.reset();
    r.stats.reset();
    r.samples_us.clear();
  }
  for (const auto& [b, n, which] :
       {std::tuple{&untimed, &untimed, "BASE"}, std::tuple{&base, &untimed, "NEW"}}) {
    try {
      (void)compare_documents(*b, *n, {});
      ADD_FAILURE() << "an untimed sweep was compared";
    } catch (const error& e) {
      EXPECT_EQ(e.kind(), error_kind::input);
      EXPECT_TRUE(contains(e.what(), std::string(which) + " (")) << e.what();
      EXPECT_TRUE(contains(e.what(), "is an untimed sweep: compiled only, without a GPU"))
          << e.what();
    }
  }
}

// --- output formats ----------------------------------------------------------------------------

TEST(compare, formats_show_the_regression_first) {
  const comparison c = compare_fixtures("sweep-base.json", "sweep-verify.json");
  const std::string table = format_table(c, {});
  EXPECT_TRUE(contains(table, "Verification regressions (1)")) << table;
  EXPECT_TRUE(contains(table,
                       "compare: 3 token counts in both tables (0 slower, 0 lost, 0 faster, 3 "
                       "same, 0 gained, 0 untimed; 0 winners "
                       "changed); 1 verification regression: REGRESSION"))
      << table;
  EXPECT_TRUE(contains(
      table, "3 token counts with the same winner and time; the records (8 in BASE, 8 in NEW"))
      << table;
  EXPECT_FALSE(contains(table, "Records: Same (8)"));
  EXPECT_TRUE(contains(format_table(c, {true}), "Records: Same (8)"));
  EXPECT_TRUE(contains(format_table(c, {true}), "Same winner, same time (3)"));

  const std::string md = format_markdown(c, {});
  EXPECT_EQ(md.rfind("## kk3tune compare: REGRESSION\n", 0), 0u) << md;
  EXPECT_TRUE(contains(md, "### Verification regressions (1)")) << md;
  EXPECT_TRUE(contains(md, "| family | mode | shape | variant | BASE | NEW | detail |")) << md;

  const auto j = nlohmann::json::parse(compare::comparison_json(c));
  EXPECT_EQ(j["kind"], "comparison");
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["verdict_on"], "shipped");
  EXPECT_EQ(j["shipped"]["counts"]["compared"], 3);
  EXPECT_EQ(j["shipped"]["counts_by_token"].size(), 3u);
  EXPECT_EQ(j["counts"]["verification_regressions"], 1);
  EXPECT_EQ(j["records"].size(), 8u) << "json lists every matched record";
  EXPECT_EQ(j["verification_regressions"][0]["new_status"], "mismatch");
}

TEST(compare, long_lists_are_cut_unless_all) {
  result_set base = fixture("time-base.json");
  result_set next = base;
  next.records.clear();
  const comparison c = compare_documents(base, next, {});
  listing_options few;
  few.list_limit = 2;
  const std::string table = format_table(c, few);
  EXPECT_TRUE(contains(table, "Only in BASE (3, not a regression)")) << table;
  EXPECT_TRUE(contains(table, "... and 1 more (--all lists them)")) << table;
  few.all = true;
  EXPECT_FALSE(contains(format_table(c, few), "more (--all lists them)"));
}

// --- two sweeps: the verdict on what ships ---------------------------------------------------

/// The record of `variant` at `tokens` in `d`.
record& record_of(result_set& d, const std::string& variant, long long tokens) {
  for (auto& r : d.records) {
    if (r.variant == variant && r.tokens == tokens) return r;
  }
  throw std::runtime_error("no record of " + variant + " at T" + std::to_string(tokens));
}

/// The winner sweep-base's dispatch table gives mla bf16 at T64.
std::string winner_at(const result_set& d, const std::string& family, long long tokens) {
  for (const auto& t : d.dispatch) {
    if (t.family != family) continue;
    for (const auto& r : t.ranges) {
      if (tokens >= r.min_tokens && tokens <= r.max_tokens) return r.winner;
    }
  }
  return {};
}

TEST(compare_shipped,
     the_winner_slower_beyond_threshold_and_noise_is_a_regression_naming_the_count) {
  const result_set base = fixture("sweep-base.json");
  const std::string winner = winner_at(base, "mla_decode_epilogue", 64);
  ASSERT_FALSE(winner.empty());
  for (const double factor : {1.10, 1.03}) {
    result_set next = base;
    record& r = record_of(next, winner, 64);
    r.stats->median *= factor;
    for (double& x : r.samples_us) x *= factor;
    const comparison c = compare_documents(base, next, {});
    ASSERT_TRUE(c.shipped_verdict);
    const auto it = std::find_if(c.shipped.begin(), c.shipped.end(), [](const count_comparison& k) {
      return k.family == "mla_decode_epilogue" && k.tokens == 64;
    });
    ASSERT_NE(it, c.shipped.end());
    EXPECT_NEAR(it->effect, factor - 1, 1e-9);
    if (factor > 1.05) {
      // 10%: beyond the 5% threshold and 2 sigma of the 1.5% noise floor (2.1% combined).
      EXPECT_EQ(it->result, count_verdict::slower);
      EXPECT_EQ(c.exit_code(), 1);
      const std::string table = format_table(c, {});
      EXPECT_TRUE(
          contains(table, "Slower at a token count: what ships is slower (regressions) (1)"))
          << table;
      EXPECT_TRUE(contains(table, "mla_decode_epilogue/bf16/H=16")) << table;
      EXPECT_TRUE(contains(table, "T64")) << table;
      EXPECT_TRUE(contains(table, "+10.0%")) << table;
    } else {
      // 3%: below the threshold: the same.
      EXPECT_EQ(it->result, count_verdict::same);
      EXPECT_EQ(c.exit_code(), 0);
    }
  }
}

TEST(compare_shipped, the_noise_floor_of_the_plans_holds_back_a_change_its_samples_would_call) {
  // 6% slower with a 0.1% standard error: beyond the threshold, and far beyond the samples' own
  // noise, but within 2 sigma of a 3% floor (4.2% combined x 2): the same, as the sweep would see
  // it.
  result_set base = fixture("sweep-base.json");
  const std::string winner = winner_at(base, "mla_decode_epilogue", 64);
  result_set next = base;
  for (result_set* d : {&base, &next}) {
    d->plan = results::plan_block{};
    d->plan->noise_floor = 0.03;
    d->plan->noise_sigmas = 2;
    record_of(*d, winner, 64).stats->rel_stderr_median = 0.001;
  }
  record_of(next, winner, 64).stats->median *= 1.06;
  comparison c = compare_documents(base, next, {});
  EXPECT_EQ(c.rule.noise_floor, 0.03);
  EXPECT_EQ(c.exit_code(), 0) << format_table(c, {});
  for (result_set* d : {&base, &next}) d->plan->noise_floor = 0.001;
  c = compare_documents(base, next, {});
  EXPECT_EQ(c.exit_code(), 1) << format_table(c, {});
}

TEST(compare_shipped, a_variant_that_wins_nothing_is_listed_only_with_all_and_decides_nothing) {
  const result_set base = fixture("sweep-base.json");
  const std::string winner = winner_at(base, "mla_decode_epilogue", 64);
  result_set next = base;
  record* loser = nullptr;
  for (auto& r : next.records) {
    if (r.family == "mla_decode_epilogue" && r.tokens == 64 && r.variant != winner &&
        r.status == results::status::ok)
      loser = &r;
  }
  ASSERT_NE(loser, nullptr);
  loser->stats->median *= 1.5;
  for (double& x : loser->samples_us) x *= 1.5;
  const comparison c = compare_documents(base, next, {});
  EXPECT_EQ(c.counts.slower, 1u) << "the record is slower";
  EXPECT_EQ(c.exit_code(), 0) << "but nothing that ships is";
  EXPECT_FALSE(contains(format_table(c, {}), loser->variant));
  listing_options all;
  all.all = true;
  EXPECT_TRUE(contains(format_table(c, all), "Records: Slower (1)")) << format_table(c, all);
}

TEST(compare_shipped, a_count_with_no_winner_any_more_is_lost_and_one_not_swept_is_no_verdict) {
  const result_set base = fixture("sweep-base.json");
  result_set next = base;
  // NEW swept mla at T64 but none qualified: the range goes.
  for (auto& t : next.dispatch) {
    if (t.family != "mla_decode_epilogue") continue;
    t.ranges.erase(
        std::remove_if(t.ranges.begin(), t.ranges.end(),
                       [](const auto& r) { return r.min_tokens <= 64 && r.max_tokens >= 64; }),
        t.ranges.end());
  }
  comparison c = compare_documents(base, next, {});
  EXPECT_EQ(c.shipped_totals.lost, 1u);
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_TRUE(
      contains(format_table(c, {}), "Lost: no qualified winner any more (regressions) (1)"));
  // NEW's plan did not sweep T64 at all: not a verdict.
  next.plan = results::plan_block{};
  for (long long t : {1LL, 1024LL}) next.plan->tokens.push_back(t);
  c = compare_documents(base, next, {});
  EXPECT_EQ(c.shipped_totals.lost, 0u);
  EXPECT_GE(c.shipped_totals.only_in_base, 1u);
  EXPECT_EQ(c.exit_code(), 0);
}

// The acceptance of issue 25: two default sweeps of one build on the H200 (sweep2 ran with
// --baseline sweep1), 551 token counts: no regression, and a short default listing.
TEST(compare_shipped, two_default_sweeps_of_one_build_are_no_regression) {
  const fs::path dir = fs::path(KK3_RESULTS_DIR) / "h200" / "chain-2026-12-01";
  const comparison c = compare_documents(read_result_set(dir / "sweep1.json.gz"),
                                         read_result_set(dir / "sweep2.json.gz"), {});
  EXPECT_EQ(c.shipped_totals.compared, 551u);
  EXPECT_EQ(c.shipped_totals.slower + c.shipped_totals.lost, 0u);
  EXPECT_EQ(c.exit_code(), 0) << c.summary_line();
  const std::string table = format_table(c, {});
  EXPECT_LE(std::count(table.begin(), table.end(), '\n'), 40) << table;
}

TEST(compare, text_helpers) {
  EXPECT_EQ(percent_text(0.1), "+10.0%");
  EXPECT_EQ(percent_text(-0.032), "-3.2%");
  timing_comparison t;
  t.test = test_kind::mann_whitney;
  t.p_value = 2.1e-8;
  EXPECT_EQ(test_text(t), "U p=2.1e-08");
  t.test = test_kind::intervals;
  t.significant = true;
  t.test_note = "BASE has 2 samples";
  EXPECT_EQ(test_text(t), "intervals disjoint (BASE has 2 samples)");
}

// --- the command ----------------------------------------------------------------------------

test::command_result compare_command(const std::string& base, const std::string& next,
                                     std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compare", (k_dir / base).string(), (k_dir / next).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_kk3tune(args);
}

TEST(compare_cli, exit_codes_and_key_lines) {
  struct expectation {
    const char* base;
    const char* next;
    std::vector<std::string> extra;
    int exit_code;
    const char* line;
  };
  const std::vector<expectation> cases = {
      {"time-base.json", "time-base.json", {}, 0, ": no regression"},
      {"sweep-base.json",
       "sweep-base.json",
       {},
       0,
       "3 token counts in both tables (0 slower, 0 lost, 0 faster, 3 same"},
      {"sweep-base.json", "sweep-base.json", {"--all"}, 0, "Records: Same (8)"},
      {"time-base.json", "time-slow.json", {}, 1, "Slower (1)"},
      {"sweep-base.json",
       "sweep-slow.json",
       {},
       1,
       "Slower at a token count: what ships is slower (regressions) (1)"},
      {"sweep-base.json", "sweep-slow.json", {"--all"}, 1, "Dispatch changes (1 table)"},
      {"time-base.json",
       "time-noise.json",
       {},
       0,
       "Noisy (changed beyond the threshold, not significant) (1)"},
      {"sweep-base.json",
       "sweep-noise.json",
       {},
       0,
       "3 token counts with the same winner and time"},
      {"sweep-base.json", "sweep-noise.json", {"--all"}, 0, "Only in NEW (3, not a regression)"},
      {"sweep-base.json", "sweep-verify.json", {}, 1, "Verification regressions (1)"},
      {"time-base.json", "time-truncated.json", {}, 2, "time-truncated.json: /results/0/"},
      {"time-truncated.json", "time-base.json", {}, 2, "the file ends early (truncated?)"},
      {"time-base.json", "time-v4.json", {}, 2, "schema_version 4 is not supported"},
      {"time-base.json",
       "time-other-gpu.json",
       {},
       2,
       "(--allow-device-mismatch compares them anyway)"},
      {"time-base.json",
       "time-other-gpu.json",
       {"--allow-device-mismatch"},
       0,
       "compared anyway (--allow-device-mismatch)"},
      {"time-base.json", "sweep-base.json", {}, 2, "compare needs two results of one kind"},
      {"time-base.json", "missing.json", {}, 2, "missing.json: cannot be read"},
      {"time-base.json", "time-slow.json", {"--threshold", "15%"}, 0, "3 same"},
      {"time-base.json", "time-slow.json", {"--threshold", "ten"}, 2, "expected a percentage"},
      {"time-base.json", "time-slow.json", {"--alpha", "2"}, 2, "--alpha"},
      {"time-base.json", "time-slow.json", {"--format", "xml"}, 2, "--format"},
      {"time-base.json",
       "time-slow.json",
       {"--format", "markdown"},
       1,
       "## kk3tune compare: REGRESSION"},
      {"time-base.json", "time-slow.json", {"--format", "json"}, 1, "\"kind\": \"comparison\""},
  };
  for (const auto& e : cases) {
    const auto r = compare_command(e.base, e.next, e.extra);
    const std::string what = std::string(e.base) + " vs " + e.next + " " + join(e.extra, " ");
    EXPECT_EQ(r.exit_code, e.exit_code) << what << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, e.line)) << what << ": no \"" << e.line << "\" in\n" << r.output;
  }
}

TEST(compare_cli, a_hand_scaled_copy_of_the_first_committed_result_is_slower) {
  // What the acceptance check does: the first result under results/, compared with itself, a
  // truncated copy and a copy whose numbers under time-like keys were scaled by 1.25 (but not
  // the raw samples in the lists).
  const auto found = test::run_command(
      "cd " + test::shell_quote(fs::path(KK3_RESULTS_DIR).parent_path().string()) +
      " && grep -l -r '\"schema_version\"' results --include=*.json | grep -v -i schema | head -1");
  ASSERT_EQ(found.exit_code, 0);
  const fs::path first = fs::path(KK3_RESULTS_DIR).parent_path() / trim(found.output);
  ASSERT_TRUE(fs::is_regular_file(first)) << first;

  test::temp_dir dir;
  const std::string text = read_file(first);
  test::write_text(dir.path() / "trunc.json", text.substr(0, 2000));
  std::function<nlohmann::ordered_json(const nlohmann::ordered_json&)> slow =
      [&](const nlohmann::ordered_json& v) {
        if (v.is_array()) {
          nlohmann::ordered_json out = nlohmann::ordered_json::array();
          for (const auto& x : v) out.push_back(x.is_number() ? x : slow(x));
          return out;
        }
        if (!v.is_object()) return v;
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        for (const auto& [k, x] : v.items()) {
          std::string key = k;
          for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          static const std::vector<std::string> k_timey = {
              "_us", "_s", "_ms", "sample", "median", "mean", "min", "max", "p10", "p90", "time"};
          const bool timey = key.find("count") == std::string::npos &&
                             std::any_of(k_timey.begin(), k_timey.end(), [&](const std::string& s) {
                               return key.find(s) != std::string::npos;
                             });
          out[k] =
              x.is_number() && timey ? nlohmann::ordered_json(x.get<double>() * 1.25) : slow(x);
        }
        return out;
      };
  test::write_text(dir.path() / "slow.json", slow(nlohmann::ordered_json::parse(text)).dump());

  EXPECT_EQ(test::run_kk3tune({"compare", first.string(), first.string()}).exit_code, 0);
  EXPECT_EQ(test::run_kk3tune({"compare", first.string(), (dir.path() / "trunc.json").string()})
                .exit_code,
            2);
  const auto r =
      test::run_kk3tune({"compare", first.string(), (dir.path() / "slow.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "+25.0%")) << r.output;
}

}  // namespace
}  // namespace kk3::compare
