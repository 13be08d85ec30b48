// The CI regression job's baseline (ci/baseline/h200.json) is current: written at the schema
// kk3tune writes today, timed under the objective ci/short-plan.json gives each family today, and
// covering what that plan sweeps. When the plan, a family's default objective or the schema
// changes, this fails until the baseline is made again on the H200 (the command is in
// docs/development.md, "Regression checks in CI"): a baseline of another objective would make
// the job's every count "not timed comparably" (exit 2), or worse, compare unlike times. It must
// also name a clean revision: the job builds it to confirm a failing screen on the runner.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include "core/json_parse.hpp"
#include "results/objective.hpp"
#include "results/reader.hpp"
#include "results/schema.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_config.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;

const fs::path k_root = fs::path(KK3_RESULTS_DIR).parent_path();

TEST(ci_baseline, matches_what_the_short_plan_would_produce) {
  sweep::sweep_request request;
  request.config = sweep::load_sweep_config(k_root / "ci" / "short-plan.json");
  request.config_dir = KK3_CONFIG_DIR;
  request.kernel_dir = KK3_KERNEL_DIR;
  const sweep::sweep_plan plan = sweep::make_plan(request);
  const results::result_set baseline =
      results::read_result_set(k_root / "ci" / "baseline" / "h200.json");

  EXPECT_EQ(baseline.kind, "sweep");
  EXPECT_EQ(baseline.schema_version, results::k_schema_version)
      << "the baseline is of an older schema: make it again";
  EXPECT_TRUE(baseline.timed());
  EXPECT_EQ(baseline.context.gpu.name, "NVIDIA H200");
  const std::string& revision = baseline.context.git_revision;
  EXPECT_TRUE(revision.size() >= 7 &&
              revision.find_first_not_of("0123456789abcdef") == std::string::npos)
      << "the baseline's git_revision \"" << revision
      << "\" names no clean revision the job could build: make it from a clean tree";
  ASSERT_TRUE(baseline.plan);
  EXPECT_EQ(baseline.plan->tokens, request.config.tokens) << "the plan's token counts changed";

  // What the plan sweeps: family, mode, variant (the reference always); and under which objective.
  std::set<std::tuple<std::string, std::string, std::string>> planned, swept;
  for (const sweep::family_work& f : plan.families) {
    for (const space::mode* m : f.modes) {
      for (const space::variant* v : f.variants)
        planned.insert({f.space.config.family, m->name, v->id});
    }
    std::size_t records = 0;
    for (const results::record& r : baseline.records) {
      if (r.family != f.space.config.family) continue;
      ++records;
      const auto why = results::differences(r.objective, f.objective);
      EXPECT_TRUE(why.empty())
          << r.key()
          << ": the baseline was timed under another objective than the plan's (BASE vs plan: "
          << (why.empty() ? "" : why.front()) << "): make it again";
      if (!why.empty()) break;
    }
    EXPECT_GT(records, 0u) << f.space.config.family << ": not in the baseline";
  }
  for (const results::record& r : baseline.records) swept.insert({r.family, r.mode, r.variant});
  EXPECT_EQ(swept, planned)
      << "the baseline sweeps other modes or variants than ci/short-plan.json";
  // Every count has a winner in the baseline's tables, so the job judges every count.
  std::size_t tables = 0;
  for (const auto& d : baseline.dispatch) tables += !d.ranges.empty();
  EXPECT_EQ(tables, baseline.dispatch.size());
  EXPECT_FALSE(baseline.dispatch.empty());
}

}  // namespace
}  // namespace kk3
