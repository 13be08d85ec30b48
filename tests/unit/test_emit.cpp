// `kk3tune emit`: the dispatch headers from sweep results. The fixture
// (tests/fixtures/sweep/mini-h200.json) is a hand-written sweep; its headers are committed under
// tests/fixtures/sweep/expected and compiled by mini_h200_select.cpp, which static_asserts
// select() on them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "codegen/dispatch_header.hpp"
#include "codegen/dispatch_tables.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::run_kk3tune;

const fs::path k_sweep_dir = fs::path(KK3_FIXTURE_DIR) / "sweep";
const fs::path k_fixture = k_sweep_dir / "mini-h200.json";
const std::vector<std::string> k_headers = {"mla_decode_epilogue.h", "attn_res.h"};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

test::command_result emit(std::vector<std::string> inputs, const fs::path& out) {
  inputs.insert(inputs.begin(), "emit");
  inputs.push_back("--out");
  inputs.push_back(out.string());
  return run_kk3tune(inputs);
}

std::string header(const fs::path& out, const std::string& name) {
  return read_file(out / "kk3tune" / "dispatch" / name);
}

// The fixture with `from` replaced by `to`, written to dir/name.
std::string fixture_with(const test::temp_dir& dir, const std::string& name,
                         const std::string& from, const std::string& to) {
  const fs::path file = dir.path() / name;
  test::write_text(file, replace(read_file(k_fixture), from, to));
  return file.string();
}

const std::string k_fixture_time = R"("utc_time": "2026-11-30T00:00:00Z")";

TEST(emit, fixture_gives_the_committed_headers) {
  test::temp_dir out;
  const auto r = emit({k_fixture.string()}, out.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const std::string& name : k_headers) {
    EXPECT_EQ(header(out.path(), name),
              read_file(k_sweep_dir / "expected" / "kk3tune" / "dispatch" / name))
        << name << " differs from the committed one; after a deliberate change, regenerate with\n"
        << "  build/kk3tune emit tests/fixtures/sweep/mini-h200.json --out "
           "tests/fixtures/sweep/expected";
  }
}

TEST(emit, byte_identical_across_runs_and_argument_orders) {
  test::temp_dir in;
  // An older sweep of the same GPU, and a result of another kind: neither changes the headers.
  const std::string older =
      fixture_with(in, "older.json", k_fixture_time, R"("utc_time": "2026-11-01T00:00:00Z")");
  const fs::path time_result = in.path() / "t.json";
  test::write_text(time_result, R"({"schema_version": 1, "kind": "time", "results": []})");

  const std::vector<std::vector<std::string>> orders = {
      {k_fixture.string()},
      {k_fixture.string(), older, time_result.string()},
      {time_result.string(), older, k_fixture.string()},
      {older, k_fixture.string(), k_fixture.string()},
  };
  std::vector<std::string> first;
  for (const auto& inputs : orders) {
    test::temp_dir out;
    const auto r = emit(inputs, out.path());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<std::string> texts;
    for (const std::string& name : k_headers) texts.push_back(header(out.path(), name));
    if (first.empty()) first = texts;
    EXPECT_EQ(texts, first) << join(inputs, " ");
  }
  EXPECT_TRUE(contains(first[0], "sweep result digest " + hash_hex(read_file(k_fixture))));
}

TEST(emit, the_latest_sweep_per_arch_wins_and_a_tie_goes_to_the_smallest_digest) {
  test::temp_dir in;
  // Same time as the fixture, other content (a margin in a comment of the heads-8 table).
  const std::string twin =
      fixture_with(in, "twin.json", R"("margin": 0.03,)", R"("margin": 0.05,)");
  const std::string twin_text = read_file(twin);
  const std::string fixture_digest = hash_hex(read_file(k_fixture));
  const std::string twin_digest = hash_hex(twin_text);
  const std::string smaller = std::min(fixture_digest, twin_digest);

  std::string a, b;
  {
    test::temp_dir out;
    const auto r = emit({k_fixture.string(), twin}, out.path());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    a = header(out.path(), "mla_decode_epilogue.h");
  }
  {
    test::temp_dir out;
    const auto r = emit({twin, k_fixture.string()}, out.path());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    b = header(out.path(), "mla_decode_epilogue.h");
  }
  EXPECT_EQ(a, b);
  EXPECT_TRUE(contains(a, "sweep result digest " + smaller)) << a;

  // A later sweep wins whatever its digest; a Blackwell sweep fills the sm_100 tables.
  const std::string later =
      fixture_with(in, "later.json", k_fixture_time, R"("utc_time": "2026-12-01T00:00:00Z")");
  const std::string b200 = fixture_with(
      in, "b200.json",
      R"("name": "NVIDIA H200", "pci_bus_id": "0000:00:00.0", "compute_capability": "9.0", "arch": "sm_90a")",
      R"("name": "NVIDIA B200", "pci_bus_id": "0000:00:00.0", "compute_capability": "10.0", "arch": "sm_100a")");
  test::temp_dir out;
  const auto r = emit({later, twin, b200, k_fixture.string()}, out.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = header(out.path(), "mla_decode_epilogue.h");
  EXPECT_TRUE(contains(text, "sweep result digest " + hash_hex(read_file(later)))) << text;
  EXPECT_TRUE(contains(text, "//   sm_100  NVIDIA B200 (sm_100a), swept by kk3tune 0.1.0")) << text;
  EXPECT_TRUE(contains(text, "inline constexpr range sm_100_bf16_heads16[]")) << text;
  EXPECT_TRUE(contains(text, "if (sm_arch >= 100) return true;")) << text;
  EXPECT_TRUE(contains(r.output, "emit: mla_decode_epilogue sm_90: " + twin +
                                     " (2026-11-30T00:00:00Z) not used: " + later))
      << r.output;
}

TEST(emit, headers_compile_warning_free_and_select_at_compile_time) {
  test::temp_dir out;
  const auto r = emit({k_fixture.string()}, out.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string source = (k_sweep_dir / "mini_h200_select.cpp").string();
  const std::string exe = (out.path() / "select_gxx").string();
  auto c = test::run_command(
      std::string(KK3_CXX_COMPILER) + " -std=c++17 -Wall -Wextra -Werror -pedantic -I" +
      test::shell_quote(out.path().string()) + " " + test::shell_quote(source) + " -o " +
      test::shell_quote(exe) + " && " + test::shell_quote(exe));
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(contains(c.output, "select ok")) << c.output;

  const std::string nvcc = KK3_NVCC;
  if (nvcc.empty() || !fs::exists(nvcc)) GTEST_SKIP() << "no nvcc: compiled with g++ only";
  const std::string cu_exe = (out.path() / "select_nvcc").string();
  c = test::run_command(
      test::shell_quote(nvcc) +
      " -std=c++17 -x cu -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings -I" +
      test::shell_quote(out.path().string()) + " " + test::shell_quote(source) + " -o " +
      test::shell_quote(cu_exe) + " && " + test::shell_quote(cu_exe));
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(contains(c.output, "select ok")) << c.output;
}

TEST(emit, results_of_other_kinds_are_skipped_with_a_line_each) {
  test::temp_dir in, out;
  const fs::path time_result = in.path() / "t.json", peers = in.path() / "peers.json",
                 list = in.path() / "list.json";
  test::write_text(time_result, R"({"schema_version": 1, "kind": "time", "results": []})");
  test::write_text(peers, R"({"torch": {}, "peers": []})");
  test::write_text(list, "[1, 2]");
  const auto r = emit({time_result.string(), peers.string(), list.string()}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      contains(r.output, "emit: skipped " + time_result.string() + ": kind \"time\", not a sweep"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "emit: skipped " + peers.string() + ": no \"kind\", not a sweep"))
      << r.output;
  EXPECT_TRUE(
      contains(r.output, "emit: skipped " + list.string() + ": not a JSON object, not a sweep"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "emit: no sweep result among the inputs")) << r.output;
  for (const std::string& name : k_headers) {
    const std::string text = header(out.path(), name);
    EXPECT_TRUE(contains(
        text, "//   sm_90   no sweep result: every select() returns the reference variant"))
        << text;
    EXPECT_TRUE(contains(
        text,
        "constexpr knobs select_sm_90(mode, int, long long) noexcept { return reference_knobs; }"))
        << text;
  }
}

TEST(emit, without_inputs_writes_all_fallback_headers) {
  test::temp_dir out;
  const auto r = emit({}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "emit: no sweep result among the inputs")) << r.output;
  const std::string text = header(out.path(), "attn_res.h");
  EXPECT_TRUE(contains(text, "namespace attn_res {")) << text;
  EXPECT_TRUE(
      contains(text, "constexpr knobs select(mode m, int blocks, long long num_tokens) noexcept"))
      << text;
  EXPECT_TRUE(contains(text, "inline constexpr char compile_options[] = \"-fmad=false\";")) << text;
}

TEST(emit, a_truncated_file_exits_2_naming_it) {
  test::temp_dir in, out;
  const std::string text = read_file(k_fixture);
  const fs::path truncated = in.path() / "truncated.json";
  test::write_text(truncated, text.substr(0, text.size() / 2));
  const auto r = emit({k_fixture.string(), truncated.string()}, out.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, truncated.string() + ": /")) << r.output;  // the JSON path where it stops
  EXPECT_TRUE(contains(r.output, ": not valid JSON: the file ends early (truncated?)")) << r.output;
  EXPECT_FALSE(fs::exists(out.path() / "kk3tune")) << "nothing is written when an input is bad";

  const auto missing = emit({(in.path() / "nope.json").string()}, out.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(contains(missing.output, "nope.json: cannot be read")) << missing.output;
}

TEST(emit, a_bad_sweep_exits_2_naming_the_file_and_the_json_path) {
  struct bad_case {
    std::string from, to, message;
  };
  const std::vector<bad_case> cases = {
      {R"("schema_version": 1)", R"("schema_version": 2)",
       "/schema_version: schema_version 2 is not supported"},
      {k_fixture_time, R"("utc": "x")", "/context/utc_time: missing"},
      {R"("arch": "sm_90a")", R"("arch": "sm_80")",
       "/context/gpu/arch: \"sm_80\" has no dispatch tables"},
      {R"("knobs": ["SPLIT", "UNROLL")", R"("knobs": ["UNROLL", "SPLIT")",
       "/families/mla_decode_epilogue/knobs: the knob names [UNROLL, SPLIT, EARLY_READS"},
      {R"("knobs": ["B", "GPW")", R"("knobs": ["B", "GPX")",
       "/families/attn_res/knobs: the knob names"},
      {R"("shape_key": "heads")", R"("shape_key": "blocks")",
       "/families/mla_decode_epilogue/shape_key"},
      {R"("family": "mla_decode_epilogue", "mode": "bf16", "heads": 16)",
       R"("family": "mla_decode_epilogue", "mode": "bf17", "heads": 16)",
       "/dispatch/0/mode: \"bf17\" is not a mode"},
      {R"("knobs": {"SPLIT": 3, "UNROLL": 1, "EARLY_READS": 1, "CACHE_WAIT": 0, "ROWS_PER_WARP": 1, "TRIGGER_EARLY": 0, "THREADS": 128},
        "runner_up": "split2)",
       R"("knobs": {"SPLIT": 3, "UNROLL": 3, "EARLY_READS": 1, "CACHE_WAIT": 0, "ROWS_PER_WARP": 1, "TRIGGER_EARLY": 0, "THREADS": 128},
        "runner_up": "split2)",
       "/dispatch/0/ranges/0/knobs: {3, 3, 1, 0, 1, 0, 128} is not a variant of"},
      {R"("min_tokens": 65, "max_tokens": 512)", R"("min_tokens": 64, "max_tokens": 512)",
       "/dispatch/0/ranges/1/min_tokens: ranges must ascend"},
      {R"("min_tokens": 65, "max_tokens": 512)", R"("min_tokens": 65)",
       "/dispatch/0/ranges/1/max_tokens: missing"},
      {R"("family": "attn_res", "mode": "common_nb4")",
       R"("family": "attn_rez", "mode": "common_nb4")",
       "/dispatch/3/family: \"attn_rez\" is not in /families"},
  };
  for (const bad_case& c : cases) {
    test::temp_dir in, out;
    const std::string file = fixture_with(in, "bad.json", c.from, c.to);
    const auto r = emit({file}, out.path());
    EXPECT_EQ(r.exit_code, 2) << c.to << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, file + ": " + c.message)) << c.to << "\n" << r.output;
  }
}

// Only the sweep a header uses must match the current config. An older sweep from before a
// family's knobs changed (attn_res's old knobs, issue 14) is skipped with a line saying so; the
// same sweep as the latest one is an error naming the file and both knob lists.
TEST(emit, only_the_sweep_used_must_match_the_config_and_older_ones_are_skipped) {
  const std::string new_knobs =
      R"("knobs": ["B", "GPW", "STAGE", "TPC", "STAGES", "SPREAD", "TRIGGER", "REGS"])";
  const std::string old_knobs =
      R"("knobs": ["B", "THREADS", "EARLY_BLOCKS", "KEEP", "STAGE", "OCC", "TPC", "CVT", "NC", "SPREAD", "RED"])";
  const std::string config = (fs::path(KK3_CONFIG_DIR) / "attn_res.json").string();
  const std::string mismatch =
      "/families/attn_res/knobs: the knob names [B, THREADS, EARLY_BLOCKS, KEEP, STAGE, OCC, TPC, "
      "CVT, NC, SPREAD, RED] do not match " +
      config + " [B, GPW, STAGE, TPC, STAGES, SPREAD, TRIGGER, REGS]";
  test::temp_dir in;
  const auto stale_sweep = [&](const std::string& name, const std::string& utc_time) {
    const fs::path file = in.path() / name;
    std::string text = replace(read_file(k_fixture), new_knobs, old_knobs);
    test::write_text(file, replace(text, k_fixture_time, R"("utc_time": ")" + utc_time + "\""));
    return file.string();
  };

  // Older and stale, beside the fixture: the headers are the fixture's, as without it.
  const std::string older = stale_sweep("older.json", "2026-11-01T00:00:00Z");
  {
    test::temp_dir out;
    const auto r = emit({older, k_fixture.string()}, out.path());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const std::string& name : k_headers) {
      EXPECT_EQ(header(out.path(), name),
                read_file(k_sweep_dir / "expected" / "kk3tune" / "dispatch" / name))
          << name;
    }
    EXPECT_TRUE(contains(r.output, "emit: attn_res sm_90: " + older +
                                       " (2026-11-01T00:00:00Z) not used: " + k_fixture.string() +
                                       " (2026-11-30T00:00:00Z) is later; it does not match the "
                                       "current config either (" +
                                       mismatch + ")\n"))
        << r.output;
    // Its mla_decode_epilogue part matches: skipped as superseded only.
    EXPECT_TRUE(contains(r.output, "emit: mla_decode_epilogue sm_90: " + older +
                                       " (2026-11-01T00:00:00Z) not used: " + k_fixture.string() +
                                       " (2026-11-30T00:00:00Z) is later\n"))
        << r.output;
  }

  // Newer and stale: it would be used, so emit refuses it and writes nothing.
  const std::string newer = stale_sweep("newer.json", "2026-12-01T00:00:00Z");
  for (const auto& inputs : {std::vector<std::string>{newer},
                             std::vector<std::string>{k_fixture.string(), newer, older}}) {
    test::temp_dir out;
    const auto r = emit(inputs, out.path());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, newer + ": " + mismatch)) << r.output;
    EXPECT_TRUE(contains(r.output, "it is the latest sweep with attn_res tables for sm_90"))
        << r.output;
    EXPECT_FALSE(fs::exists(out.path() / "kk3tune")) << "nothing is written when an input is bad";
  }
}

TEST(emit, out_is_required) {
  const auto r = run_kk3tune({"emit", k_fixture.string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--out")) << r.output;
}

TEST(codegen, table_archs_and_identifiers) {
  EXPECT_EQ(codegen::table_arch("sm_90a"), "sm_90");
  EXPECT_EQ(codegen::table_arch("sm_90"), "sm_90");
  EXPECT_EQ(codegen::table_arch("sm_100a"), "sm_100");
  EXPECT_EQ(codegen::table_arch("sm_100"), "sm_100");
  EXPECT_EQ(codegen::table_arch("sm_80"), "");
  EXPECT_EQ(codegen::to_identifier("bf16_rope"), "bf16_rope");
  EXPECT_EQ(codegen::to_identifier("4bit-x.y"), "_4bit_x_y");
  EXPECT_EQ(codegen::to_identifier("default"), "default_");
}

}  // namespace
}  // namespace kk3
