// An untimed sweep's resource report (results/arch_resources.hpp) through the codec: a compile
// record's "resources" survive the journal (full precision, strict) and the result file; a record
// without them writes no "resources" key, so timed files keep their bytes.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "support/test_support.hpp"
#include "sweep/compile_resources.hpp"
#include "sweep/untimed_summary.hpp"

namespace kk3::results {
namespace {

record compile_record() {
  record r;
  r.family = "attn_res";
  r.mode = "common_nb8";
  r.shape = {{"blocks", 8}};
  r.variant = "b1-gpw2";
  r.knobs = {{"B", 1}, {"GPW", 2}};
  r.status = status::unverified;
  arch_resources a;
  a.arch = "sm_90a";
  a.registers = 119;
  a.spill_store_bytes = 0;
  a.spill_load_bytes = 0;
  a.shared_bytes = 896;
  a.stack_bytes = 0;
  a.threads_per_cta = 448;
  a.target = "H200";
  a.sm_count = 132;
  a.ctas_per_sm = 1;
  a.warps_per_sm = 14;
  a.occupancy = 0.21875;
  a.limiter = "registers";
  arch_resources b;  // no target, unknown spills
  b.arch = "sm_120a";
  b.registers = 40;
  b.shared_bytes = 0;
  b.stack_bytes = 0;
  b.threads_per_cta = 128;
  b.dynamic_shared_bytes = 4096;
  b.cluster_ctas = 2;
  r.resources = {a, b};
  return r;
}

void expect_same(const arch_resources& x, const arch_resources& y) {
  EXPECT_EQ(x.arch, y.arch);
  EXPECT_EQ(x.registers, y.registers);
  EXPECT_EQ(x.spill_store_bytes, y.spill_store_bytes);
  EXPECT_EQ(x.spill_load_bytes, y.spill_load_bytes);
  EXPECT_EQ(x.shared_bytes, y.shared_bytes);
  EXPECT_EQ(x.stack_bytes, y.stack_bytes);
  EXPECT_EQ(x.threads_per_cta, y.threads_per_cta);
  EXPECT_EQ(x.dynamic_shared_bytes, y.dynamic_shared_bytes);
  EXPECT_EQ(x.cluster_ctas, y.cluster_ctas);
  EXPECT_EQ(x.target, y.target);
  EXPECT_EQ(x.sm_count, y.sm_count);
  EXPECT_EQ(x.ctas_per_sm, y.ctas_per_sm);
  EXPECT_EQ(x.warps_per_sm, y.warps_per_sm);
  EXPECT_DOUBLE_EQ(x.occupancy, y.occupancy);
  EXPECT_EQ(x.limiter, y.limiter);
}

TEST(Resources, SurviveTheJournalAndTheFile) {
  const record r = compile_record();
  for (record_precision p : {record_precision::full, record_precision::rounded}) {
    const json j = record_json(r, p);
    ASSERT_TRUE(j.contains("resources"));
    EXPECT_TRUE(j["resources"][1]["spill_store_bytes"].is_null());
    EXPECT_TRUE(j["resources"][1]["target"].is_null());
    const record back = record_from_json(j);
    ASSERT_EQ(back.resources.size(), 2u);
    expect_same(back.resources[0], r.resources[0]);
    expect_same(back.resources[1], r.resources[1]);
    EXPECT_EQ(record_json(back, p).dump(), j.dump());
  }
}

TEST(Resources, AbsentFromRecordsWithoutThem) {
  record r = compile_record();
  r.resources.clear();
  EXPECT_FALSE(record_json(r, record_precision::rounded).contains("resources"));
  EXPECT_TRUE(record_from_json(record_json(r, record_precision::full)).resources.empty());
}

TEST(Resources, MistypedFieldIsNamed) {
  json j = record_json(compile_record(), record_precision::full);
  j["resources"][0]["registers"] = "119";
  try {
    (void)record_from_json(j);
    FAIL() << "a string register count was read";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("/resources/0/registers"), std::string::npos) << e.what();
  }
}

TEST(Resources, FromACompileAndItsLaunch) {
  jit::compile_result c;
  c.arch = "sm_90a";
  c.ok = true;
  c.usage = {255, 16, 16, 1024, 64};
  device::launch_config launch;
  launch.block = {128, 1, 1};
  launch.shared_bytes = 8192;
  launch.cluster = {4, 1, 1};
  const arch_resources r = sweep::compile_resources(c, launch);
  EXPECT_EQ(r.registers, 255);
  EXPECT_EQ(r.spill_store_bytes, 16);
  EXPECT_EQ(r.threads_per_cta, 128);
  EXPECT_EQ(r.dynamic_shared_bytes, 8192);
  EXPECT_EQ(r.cluster_ctas, 4);
  EXPECT_EQ(r.target, "H200");
  // 255 registers: 8192 per warp, 2 warps per sub-partition, 8 per SM: 2 CTAs of 4 warps.
  EXPECT_EQ(r.ctas_per_sm, 2);
  EXPECT_EQ(r.warps_per_sm, 8);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.125);
  EXPECT_EQ(r.limiter, "registers");
  c.arch = "sm_120a";
  EXPECT_TRUE(sweep::compile_resources(c, launch).target.empty());
}

}  // namespace
}  // namespace kk3::results

namespace kk3::results {
namespace {

// An untimed sweep as `sweep` writes it without a GPU, one record with its resources.
std::string untimed_sweep_text() {
  return R"({"schema_version": 3, "kind": "sweep",
  "context": {"gpu": null, "tool_version": "0.1.0", "git_revision": "x", "argv": [], "utc_time": ""},
  "plan": {"config": "default.json", "tokens": [1], "archs": ["sm_90a"], "timed": false,
           "copy_ceiling_tb_s": 0, "compiles": 1, "compile_failures": 0, "wall_s": 1},
  "families": {}, "dispatch": [],
  "records": [)" +
         record_json(compile_record(), record_precision::rounded).dump() + "]}\n";
}

TEST(UntimedSweep, CompareRefusesItPlainly) {
  test::temp_dir dir;
  const std::filesystem::path file = dir.path() / "untimed.json";
  test::write_text(file, untimed_sweep_text());
  const test::command_result r = test::run_kk3tune({"compare", file.string(), file.string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(test::contains(
      r.output, "BASE (" + file.string() + ") is an untimed sweep: compiled only, without a GPU"))
      << r.output;
  EXPECT_FALSE(test::contains(r.output, "REGRESSION")) << r.output;
}

TEST(UntimedSweep, ReportShowsItsResources) {
  test::temp_dir dir;
  const std::filesystem::path file = dir.path() / "untimed.json", html = dir.path() / "r.html",
                              csv = dir.path() / "r.csv";
  test::write_text(file, untimed_sweep_text());
  const test::command_result r =
      test::run_kk3tune({"report", file.string(), "--html", html.string(), "--csv", csv.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(test::contains(r.output, "is an untimed sweep (compiled only, no GPU)")) << r.output;
  const std::string page = read_file(html);
  for (const char* part : {"untimed sweep report", "compiled only, no GPU: nothing was timed",
                           "Resources (untimed sweep)", "<td>H200</td>", "registers"}) {
    EXPECT_TRUE(test::contains(page, part)) << part;
  }
  EXPECT_FALSE(test::contains(page, "token counts</th>")) << "no timed summary";
  EXPECT_FALSE(test::contains(page, "TB/s")) << "no bandwidth without a GPU";
  const std::string table = read_file(csv);
  EXPECT_TRUE(test::contains(table, ",sm_90a_registers,sm_90a_spill_store_bytes,")) << table;
  EXPECT_TRUE(test::contains(
      table, ",119,0,0,896,0,448,0,1,H200,1,14,0.21875,registers,40,,,0,0,128,4096,2,,,,,\n"))
      << table;
}

}  // namespace
}  // namespace kk3::results

namespace kk3::sweep {
namespace {

TEST(UntimedSweep, SummaryCountsTheLimitAndTheSpills) {
  results::record a;  // sm_90a at the limit and spilling, sm_100a failed
  a.family = "attn_res";
  a.status = results::status::compile_failed;
  results::arch_resources r;
  r.arch = "sm_90a";
  r.registers = 255;
  r.spill_store_bytes = 8;
  r.spill_load_bytes = 8;
  r.target = "H200";
  r.occupancy = 0.125;
  a.resources = {r};
  results::record b = a;  // both archs fine
  b.status = results::status::unverified;
  b.resources[0].registers = 64;
  b.resources[0].spill_store_bytes = b.resources[0].spill_load_bytes = 0;
  b.resources[0].occupancy = 0.5;
  r.arch = "sm_100a";
  r.registers = 80;
  r.spill_store_bytes = r.spill_load_bytes = 0;
  r.target = "B200";
  r.occupancy = 0.75;
  b.resources.push_back(r);
  results::result_set result;
  result.plan.emplace().archs = {"sm_100a", "sm_90a"};
  result.plan->timed = false;
  result.records = {a, b};
  const std::string text = untimed_summary(result, "x.json", "h200.json.gz");
  for (const char* line :
       {"  sm_100a (B200): 1 compiled, 1 failed\n", "  sm_90a (H200): 2 compiled, 0 failed\n",
        "  attn_res sm_90a: 1 of 2 variants at 255 registers, 1 spill; "
        "occupancy on the H200 12.5% to 50.0%\n",
        "  attn_res sm_100a: 0 of 2 variants at 255 registers, 0 spill; "
        "occupancy on the B200 75.0% to 75.0%\n",
        "\n  "}) {
    EXPECT_TRUE(test::contains(text, line)) << line << "\n" << text;
  }
  // the binary that ran (here the test's own), then the page named after the result
  EXPECT_TRUE(test::contains(text, "  " + command_path() + " report x.json --html x.html")) << text;
  EXPECT_TRUE(test::contains(text, "  " + command_path() + " report h200.json.gz --html h200.html"))
      << text;
}

}  // namespace
}  // namespace kk3::sweep
