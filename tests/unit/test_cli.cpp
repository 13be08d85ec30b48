// Smoke tests of the kk3tune binary: each subcommand, its output and its exit code.
#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

using test::run_kk3tune;

using test::contains;
using test::k_no_driver;

TEST(cli, version_and_help) {
  auto r = run_kk3tune({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "kk3tune 0.1.0 (git ")) << r.output;
  r = run_kk3tune({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : {"doctor", "list", "compile"}) {
    EXPECT_TRUE(contains(r.output, sub)) << sub;
    EXPECT_EQ(run_kk3tune({sub, "--help"}).exit_code, 0) << sub;
  }
}

TEST(cli, bad_usage_exits_2) {
  EXPECT_EQ(run_kk3tune({}).exit_code, 2);
  EXPECT_EQ(run_kk3tune({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_kk3tune({"compile", "--jobs", "many"}).exit_code, 2);
  auto r = run_kk3tune({"list", "--family", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.output, "unknown family 'nope'")) << r.output;
}

TEST(cli, doctor_without_a_driver_reports_and_exits_3) {
  const auto r = run_kk3tune({"doctor"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "no NVIDIA driver")) << r.output;
  EXPECT_TRUE(contains(r.output, "no GPU")) << r.output;
  EXPECT_TRUE(contains(r.output, "NVRTC:")) << r.output;
  EXPECT_TRUE(contains(r.output, "CUDA include:")) << r.output;
  EXPECT_TRUE(contains(r.output, "compile cache:")) << r.output;
}

TEST(cli, list_hides_examples_unless_asked) {
  auto r = run_kk3tune({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "copy_example")) << r.output;
  EXPECT_TRUE(contains(r.output, "mla_decode_epilogue: ")) << r.output;
  EXPECT_TRUE(contains(r.output, "modes:     bf16, bf16_rope, fp8, fp8_rope")) << r.output;
  r = run_kk3tune({"list", "--all", "--variants"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "copy_example (example)")) << r.output;
  EXPECT_TRUE(contains(r.output, "27 per mode")) << r.output;
  EXPECT_TRUE(contains(r.output, "vec_bytes16-unroll1-threads256  (reference)")) << r.output;
}

TEST(cli, compile_for_two_archs_then_from_the_cache) {
  test::temp_dir cache;
  const std::vector<std::string> args = {
      "compile",        "--family",    "copy_example",       "--arch",
      "sm_90a,sm_100a", "--cache-dir", cache.path().string()};
  auto r = run_kk3tune(args, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      contains(r.output, "54 variant compiles for 2 arch(s): 54 ok, 0 failed, 0 from the cache"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "sm_100a")) << r.output;
  r = run_kk3tune(args, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "54 ok, 0 failed, 54 from the cache")) << r.output;
}

TEST(cli, compile_without_gpu_or_arch_exits_3) {
  const auto r = run_kk3tune({"compile", "--no-cache"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "--arch sm_90a,sm_100a")) << r.output;
}

TEST(cli, compile_with_an_unknown_arch_exits_2) {
  const auto r = run_kk3tune({"compile", "--arch", "sm_91x", "--no-cache"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "sm_91x")) << r.output;
}

TEST(cli, compile_with_a_bad_config_exits_2_naming_file_and_field) {
  const auto r =
      run_kk3tune({"--config-dir", std::string(KK3_FIXTURE_DIR) + "/bad_configs", "compile",
                   "--family", "copy_example", "--arch", "sm_90a", "--no-cache"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(
      r.output,
      "bad_configs/copy_example.json: /knobs/VEC_BYTES/2: expected a non-negative integer"))
      << r.output;
}

TEST(cli, compile_with_broken_variants_exits_1_and_prints_their_logs) {
  const auto r =
      run_kk3tune({"--kernel-dir", std::string(KK3_FIXTURE_DIR) + "/broken_kernels", "compile",
                   "--family", "copy_example", "--arch", "sm_90a", "--no-cache"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "18 ok, 9 failed")) << r.output;
  EXPECT_TRUE(contains(
      r.output, "copy_example/default/vec_bytes4-unroll1-threads128 @ sm_90a: compile_failed"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "VEC_BYTES=4 is broken on purpose")) << r.output;
  EXPECT_TRUE(contains(r.output, "options: -arch=sm_90a")) << r.output;
}

// verify --variant takes a comma list, as time does; every id is checked before the GPU is
// looked for, so these run the same with or without one.
TEST(cli, verify_takes_a_variant_list_and_names_an_unknown_id) {
  auto r = run_kk3tune({"verify", "--family", "copy_example", "--variant",
                        "vec_bytes16-unroll1-threads256,nope", "--no-cache"},
                       {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--variant nope: no such variant of copy_example")) << r.output;
  r = run_kk3tune({"verify", "--family", "copy_example", "--variant", " , ", "--no-cache"},
                  {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--variant: expected an id, 'reference', a glob")) << r.output;
  // A list of known ids (the reference among them or not) gets as far as looking for the GPU.
  for (const char* list : {"vec_bytes4-unroll1-threads128,vec_bytes16-unroll4-threads512",
                           "reference,vec_bytes8-unroll2-threads256", "all"}) {
    r = run_kk3tune({"verify", "--family", "copy_example", "--variant", list, "--no-cache"},
                    {k_no_driver});
    EXPECT_EQ(r.exit_code, 3) << list << "\n" << r.output;
  }
}

// Issue 25, item 5: a sweep's result records the command the user typed: a supervised worker's
// (single GPU, a restart after a fault, --gpus) is the user's plus internal flags, which go.
TEST(cli, a_sweep_records_the_command_typed_not_its_workers) {
  const std::vector<std::string> typed = {"/opt/kk3tune", "--config-dir", "c",
                                          "sweep",        "--config",     "p.json",
                                          "--resume",     "--out",        "o.json"};
  std::vector<std::string> worker = typed;
  worker.push_back("--worker");
  EXPECT_EQ(cli::typed_command(worker), typed);
  std::vector<std::string> gpu_worker = typed;
  gpu_worker.insert(gpu_worker.end(),
                    {"--worker", "--gpu-worker", "2/4", "--claims", "o.json.claims"});
  EXPECT_EQ(cli::typed_command(gpu_worker), typed);
  std::vector<std::string> with_equals = typed;
  with_equals.insert(with_equals.begin() + 4, {"--gpu-worker=1/2", "--claims=x"});
  EXPECT_EQ(cli::typed_command(with_equals), typed);
  EXPECT_EQ(cli::typed_command(typed), typed);  // the supervisor's own is the user's already
}

// A result file written by a worker of an older kk3tune records its internal --worker flag (the
// committed chain sweep does); the report shows the command as the user typed it.
TEST(cli, a_report_shows_no_worker_flags) {
  const test::temp_dir dir;
  const std::string file = std::string(KK3_RESULTS_DIR) + "/h200/chain-2026-12-01/sweep2.json.gz";
  const std::string html = (dir.path() / "r.html").string();
  const auto r = run_kk3tune({"report", file, "--html", html}, {k_no_driver});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string page = read_file(html);
  EXPECT_FALSE(contains(page, "--worker"));
  EXPECT_TRUE(contains(page,
                       "kk3tune sweep --baseline results/h200/chain-2026-12-01/sweep1.json.gz"
                       " --out /tmp/x/sweep2.json --cache-dir /tmp/c2"));
}

}  // namespace
}  // namespace kk3
