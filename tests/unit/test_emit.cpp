// `kk3tune emit`: the dispatch headers from sweep results. The fixture
// (tests/fixtures/sweep/mini-h200.json) is a hand-written sweep; its headers are committed under
// tests/fixtures/sweep/expected and compiled by mini_h200_select.cpp, which static_asserts
// select() on them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/dispatch_header.hpp"
#include "codegen/dispatch_tables.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
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

// The fixture as the sweep files of a sharded plan (issue 15): plan.digest, items (one per
// dispatch table) and the shard covering `covered` (none: unsharded), with that shard's tables
// and records and the plan fields merge sums.
json sharded_fixture(const std::vector<std::size_t>& covered, int index, int count,
                     const std::string& utc_time) {
  const json whole = json::parse(read_file(k_fixture));
  json doc = whole;
  json items = json::array();
  for (const json& d : whole["dispatch"]) {
    // The fixture is schema 1: a table's shape is its family's key of "heads" and "blocks".
    const std::string key = d["family"] == "mla_decode_epilogue" ? "heads" : "blocks";
    items.push_back(d["family"].get<std::string>() + "/" + d["mode"].get<std::string>() + "/" +
                    key + "=" + std::to_string(d[key].get<int>()));
  }
  doc["context"]["utc_time"] = utc_time;
  doc["plan"].update(
      {{"copy_ceiling_tb_s", 4.0},
       {"compiles", 1},
       {"compile_failures", 0},
       {"wall_s", 1.0},
       {"digest", "0123456789abcdef0123456789abcdef"},
       {"objective", "graph"},
       {"items", items},
       {"shard", count == 0 ? json(nullptr)
                            : json{{"index", index}, {"count", count}, {"items", covered}}}});
  doc["dispatch"] = json::array();
  doc["records"] = json::array();
  for (const std::size_t i : covered) {
    doc["dispatch"].push_back(whole["dispatch"][i]);
    for (const json& r : whole["records"]) {
      if (r["family"] == whole["dispatch"][i]["family"] &&
          r["mode"] == whole["dispatch"][i]["mode"] &&
          r["heads"] == whole["dispatch"][i]["heads"] &&
          r["blocks"] == whole["dispatch"][i]["blocks"])
        doc["records"].push_back(r);
    }
  }
  return doc;
}

std::string write_json(const test::temp_dir& dir, const std::string& name, const json& doc) {
  const fs::path file = dir.path() / name;
  test::write_text(file, doc.dump(2));
  return file.string();
}

std::vector<std::string> headers_of(const std::vector<std::string>& inputs) {
  test::temp_dir out;
  const auto r = emit(inputs, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> texts;
  for (const std::string& name : k_headers)
    texts.push_back(r.exit_code == 0 ? header(out.path(), name) : "");
  return texts;
}

TEST(emit, byte_identical_across_runs_and_argument_orders) {
  test::temp_dir in;
  // The fixture's tables in two files of one plan, and a result of another kind (skipped).
  const std::string a =
      write_json(in, "a.json", sharded_fixture({0, 3}, 1, 2, "2026-11-30T00:00:00Z"));
  const std::string b =
      write_json(in, "b.json", sharded_fixture({1, 2}, 2, 2, "2026-11-30T01:00:00Z"));
  const fs::path time_result = in.path() / "t.json";
  test::write_text(time_result, R"({"schema_version": 1, "kind": "time", "results": []})");

  const std::vector<std::vector<std::string>> orders = {
      {a, b}, {b, a, time_result.string()}, {time_result.string(), b, a}};
  const std::vector<std::string> first = headers_of(orders[0]);
  for (const auto& inputs : orders) EXPECT_EQ(headers_of(inputs), first) << join(inputs, " ");
  EXPECT_EQ(headers_of({k_fixture.string()}), headers_of({k_fixture.string()}));
  EXPECT_TRUE(contains(headers_of({k_fixture.string()})[0],
                       "sweep result digest " + hash_hex(read_file(k_fixture))));
}

// The shards of a plan and the file `kk3tune merge` makes of them give the same header bytes:
// the provenance names the plan (its digest, the first shard's context), not the files.
TEST(emit, shards_combined_give_the_header_of_their_merged_file) {
  test::temp_dir in;
  const std::string a =
      write_json(in, "a.json", sharded_fixture({0, 3}, 1, 2, "2026-11-30T00:00:00Z"));
  const std::string b =
      write_json(in, "b.json", sharded_fixture({1, 2}, 2, 2, "2026-11-30T01:00:00Z"));
  const std::string merged = (in.path() / "merged.json").string();
  const auto m = run_kk3tune({"merge", b, a, "--out", merged});
  ASSERT_EQ(m.exit_code, 0) << m.output;

  const std::vector<std::string> from_shards = headers_of({b, a});
  EXPECT_EQ(from_shards, headers_of({merged}));
  const std::string mla = from_shards[0];
  EXPECT_TRUE(contains(
      mla, "at 2026-11-30T00:00:00Z; sweep plan digest 0123456789abcdef0123456789abcdef\n"))
      << mla;
  // The tables are the fixture's: only the provenance block differs.
  const std::string fixture_mla = headers_of({k_fixture.string()})[0];
  const std::string end = codegen::k_provenance_end;
  ASSERT_NE(mla.find(end), std::string::npos) << mla;
  EXPECT_EQ(mla.substr(mla.find(end)), fixture_mla.substr(fixture_mla.find(end)));
}

TEST(emit, two_inputs_with_the_same_table_are_refused_naming_both) {
  test::temp_dir in;
  // Same tables as the fixture, another margin (a per-run figure) in the heads-8 table.
  const std::string twin =
      fixture_with(in, "twin.json", R"("margin": 0.03,)", R"("margin": 0.05,)");
  const std::string a =
      write_json(in, "a.json", sharded_fixture({0, 3}, 1, 2, "2026-11-30T00:00:00Z"));
  const std::string b =
      write_json(in, "b.json", sharded_fixture({1, 2}, 2, 2, "2026-11-30T01:00:00Z"));
  const std::string merged = (in.path() / "merged.json").string();
  ASSERT_EQ(run_kk3tune({"merge", a, b, "--out", merged}).exit_code, 0);
  struct refusal {
    std::vector<std::string> inputs;
    std::string message;
  };
  const std::vector<refusal> cases = {
      {{k_fixture.string(), twin},
       "two inputs give the table mla_decode_epilogue sm_90 mode bf16 heads 16: " +
           k_fixture.string() + " (/dispatch/0) and " + twin + " (/dispatch/0)"},
      {{twin, k_fixture.string()}, "mla_decode_epilogue sm_90 mode bf16 heads 16: " + twin},
      {{k_fixture.string(), k_fixture.string()},
       "two inputs give the table mla_decode_epilogue sm_90"},
      {{a, merged},
       "two inputs give the table mla_decode_epilogue sm_90 mode bf16 heads 16: " + a +
           " (/dispatch/0) and " + merged + " (/dispatch/0)"},
  };
  for (const refusal& c : cases) {
    test::temp_dir out;
    const auto r = emit(c.inputs, out.path());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, c.message)) << r.output;
    EXPECT_FALSE(fs::exists(out.path() / "kk3tune")) << "nothing is written when inputs conflict";
  }
}

TEST(emit, a_blackwell_sweep_fills_the_sm_100_tables) {
  test::temp_dir in;
  const std::string b200 = fixture_with(
      in, "b200.json",
      R"("name": "NVIDIA H200", "pci_bus_id": "0000:00:00.0", "compute_capability": "9.0", "arch": "sm_90a")",
      R"("name": "NVIDIA B200", "pci_bus_id": "0000:00:00.0", "compute_capability": "10.0", "arch": "sm_100a")");
  const std::string text = headers_of({b200, k_fixture.string()})[0];
  EXPECT_TRUE(contains(text, "sweep result digest " + hash_hex(read_file(k_fixture)))) << text;
  EXPECT_TRUE(contains(text, "//   sm_100  NVIDIA B200 (sm_100a), swept by kk3tune 0.1.0")) << text;
  EXPECT_TRUE(contains(text, "inline constexpr range sm_100_bf16_heads16[]")) << text;
  EXPECT_TRUE(contains(text, "if (sm_arch >= 100) return true;")) << text;
}

TEST(emit, headers_compile_warning_free_and_select_at_compile_time) {
  test::temp_dir out;
  const auto r = emit({k_fixture.string()}, out.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string source = (k_sweep_dir / "mini_h200_select.cpp").string();
  const std::string exe = (out.path() / "select_gxx").string();
  auto c = test::run_command(
      std::string(KK3_CXX_COMPILER) + " -std=c++17 -Wall -Wextra -Werror -pedantic -I" +
      test::shell_quote(out.path().string()) + " -I" + test::shell_quote(KK3_BUILD_INCLUDE_DIR) +
      " " + test::shell_quote(source) + " -o " + test::shell_quote(exe) + " && " +
      test::shell_quote(exe));
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(contains(c.output, "select ok")) << c.output;

  const std::string nvcc = KK3_NVCC;
  if (nvcc.empty() || !fs::exists(nvcc)) GTEST_SKIP() << "no nvcc: compiled with g++ only";
  const std::string cu_exe = (out.path() / "select_nvcc").string();
  c = test::run_command(
      test::shell_quote(nvcc) +
      " -std=c++17 -x cu -Xcompiler=-Wall,-Wextra,-Werror -Werror all-warnings -I" +
      test::shell_quote(out.path().string()) + " -I" + test::shell_quote(KK3_BUILD_INCLUDE_DIR) +
      " " + test::shell_quote(source) + " -o " + test::shell_quote(cu_exe) + " && " +
      test::shell_quote(cu_exe));
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(contains(c.output, "select ok")) << c.output;
}

TEST(emit, inputs_none_of_which_is_a_sweep_exit_2_naming_each) {
  test::temp_dir in, out;
  const fs::path time_result = in.path() / "t.json", peers = in.path() / "peers.json",
                 list = in.path() / "list.json";
  test::write_text(time_result, R"({"schema_version": 1, "kind": "time", "results": []})");
  test::write_text(peers, R"({"torch": {}, "peers": []})");
  test::write_text(list, "[1, 2]");
  // An untimed sweep (compiled without a GPU) has no tables: not a sweep to emit either.
  const fs::path untimed = in.path() / "untimed.json";
  test::write_text(
      untimed,
      R"({"schema_version": 1, "kind": "sweep", "context": {"gpu": null}, "plan": {"timed": false},
                              "families": {}, "records": [], "dispatch": []})");
  const std::vector<std::string> inputs = {time_result.string(), peers.string(), list.string(),
                                           untimed.string()};
  auto r = emit(inputs, out.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(
      r.output,
      "kk3tune: input error: emit: no input is a timed sweep, so there is no table to emit ("))
      << r.output;
  for (const std::string& why :
       {time_result.string() + ": kind \"time\", not a sweep",
        peers.string() + ": no \"kind\", not a sweep",
        list.string() + ": not a JSON object, not a sweep",
        untimed.string() +
            ": an untimed sweep (compiled only, no GPU: nothing was timed, so it has "
            "no dispatch tables to emit)"}) {
    EXPECT_TRUE(contains(r.output, why)) << r.output;
  }
  EXPECT_FALSE(fs::exists(out.path() / "kk3tune")) << "nothing is written";

  // Beside a sweep, each other file is skipped with a line, and the sweep's headers are written.
  std::vector<std::string> with_sweep = inputs;
  with_sweep.push_back(k_fixture.string());
  r = emit(with_sweep, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      contains(r.output, "emit: skipped " + time_result.string() + ": kind \"time\", not a sweep"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "emit: skipped " + untimed.string() + ": an untimed sweep"))
      << r.output;
  for (const std::string& name : k_headers) {
    EXPECT_EQ(header(out.path(), name),
              read_file(k_sweep_dir / "expected" / "kk3tune" / "dispatch" / name))
        << name;
  }
}

TEST(emit, a_header_without_tables_never_replaces_an_existing_file_unless_asked) {
  test::temp_dir in, out;
  ASSERT_EQ(emit({k_fixture.string()}, out.path()).exit_code, 0);
  const std::vector<std::string> tuned = {header(out.path(), k_headers[0]),
                                          header(out.path(), k_headers[1])};
  const auto unchanged = [&] {
    for (std::size_t i = 0; i < k_headers.size(); ++i)
      EXPECT_EQ(header(out.path(), k_headers[i]), tuned[i]) << k_headers[i];
  };
  // Inputs with tables of mla_decode_epilogue alone: attn_res.h would lose its tables.
  const std::string mla_only =
      write_json(in, "mla.json", sharded_fixture({0, 1, 2}, 0, 0, "2026-11-30T00:00:00Z"));
  const fs::path attn_res = out.path() / "kk3tune" / "dispatch" / "attn_res.h";
  auto r = emit({mla_only}, out.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      contains(r.output, "kk3tune: usage error: emit would replace " + attn_res.string() +
                             " (no input has a table of attn_res) with a header without tables"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "--allow-reference-only to write it anyway; nothing was written"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "mla_decode_epilogue.h")) << r.output;
  unchanged();
  // The bootstrap (no inputs) over headers with tables: refused, both named.
  r = emit({}, out.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const std::string& name : k_headers) {
    EXPECT_TRUE(contains(r.output, (out.path() / "kk3tune" / "dispatch" / name).string() +
                                       " (it has tables from a sweep; no input was given)"))
        << r.output;
  }
  unchanged();
  // Asked: written.
  r = emit({mla_only, "--allow-reference-only"}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(
      contains(read_file(attn_res),
               "//   sm_90   no sweep result: every select() returns the reference variant"));
  EXPECT_TRUE(contains(header(out.path(), k_headers[0]),
                       "sm_90_bf16_heads16[] = {"));  // mla's tables from the sweep
  r = emit({"--allow-reference-only"}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(header(out.path(), k_headers[0]), "//   sm_90   no sweep result"));
  // Reference-only headers (as the build bootstraps them) are rewritten by the bootstrap, and a
  // fresh folder takes any header.
  r = emit({}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  test::temp_dir fresh;
  r = emit({mla_only}, fresh.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(fresh.path() / "kk3tune" / "dispatch" / "attn_res.h"));
}

TEST(emit, without_inputs_writes_all_fallback_headers) {
  test::temp_dir out;
  const auto r = emit({}, out.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "emit: no input: every table falls back to the reference variant"))
      << r.output;
  const std::string text = header(out.path(), "attn_res.h");
  EXPECT_TRUE(contains(text, "namespace attn_res {")) << text;
  EXPECT_TRUE(
      contains(text, "constexpr knobs select(mode m, int blocks, long long num_tokens) noexcept"))
      << text;
  EXPECT_TRUE(contains(text, "inline constexpr char compile_options[] = \"\";")) << text;
  EXPECT_TRUE(contains(text, "inline constexpr char macro_prefix[] = \"KK3_ATTN_RES_\";")) << text;
}

TEST(emit, a_truncated_file_exits_2_naming_it) {
  test::temp_dir in, out;
  const std::string text = read_file(k_fixture);
  const fs::path truncated = in.path() / "truncated.json";
  test::write_text(truncated, text.substr(0, text.size() / 2));
  const auto r = emit({k_fixture.string(), truncated.string()}, out.path());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, truncated.string() + ": /"))
      << r.output;  // the JSON path where it stops
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
      {R"("schema_version": 1)", R"("schema_version": 4)",
       "/schema_version: schema_version 4 is not supported"},
      {k_fixture_time, R"("utc": "x")", "/context/utc_time: missing"},
      {R"("arch": "sm_90a")", R"("arch": "sm_80")",
       "/context/gpu/arch: \"sm_80\" has no dispatch tables"},
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

// Tables that do not match the family's current config (knob names, shape key, mode, a range's
// knobs) give that family no table, naming the file and the JSON path; the other family's
// tables of the file are emitted (a_familys_stale_tables_are_skipped_and_the_rest_emitted).
TEST(emit, tables_that_do_not_match_the_config_are_skipped_naming_the_file_and_the_json_path) {
  struct bad_case {
    std::string from, to, family, message;
  };
  const std::vector<bad_case> cases = {
      {R"("knobs": ["SPLIT", "UNROLL")", R"("knobs": ["UNROLL", "SPLIT")", "mla_decode_epilogue",
       "/families/mla_decode_epilogue/knobs: the knob names [UNROLL, SPLIT, EARLY_READS"},
      {R"("knobs": ["B", "GPW")", R"("knobs": ["B", "GPX")", "attn_res",
       "/families/attn_res/knobs: the knob names"},
      {R"("shape_key": "heads")", R"("shape_key": "blocks")", "mla_decode_epilogue",
       "/families/mla_decode_epilogue/shape_key"},
      {R"("family": "mla_decode_epilogue", "mode": "bf16", "heads": 16)",
       R"("family": "mla_decode_epilogue", "mode": "bf17", "heads": 16)", "mla_decode_epilogue",
       "/dispatch/0/mode: \"bf17\" is not a mode"},
      {R"("knobs": {"SPLIT": 3, "UNROLL": 1, "EARLY_READS": 1, "CACHE_WAIT": 0, "ROWS_PER_WARP": 1, "TRIGGER_EARLY": 0, "THREADS": 128},
        "runner_up": "split2)",
       R"("knobs": {"SPLIT": 3, "UNROLL": 3, "EARLY_READS": 1, "CACHE_WAIT": 0, "ROWS_PER_WARP": 1, "TRIGGER_EARLY": 0, "THREADS": 128},
        "runner_up": "split2)",
       "mla_decode_epilogue",
       "/dispatch/0/ranges/0/knobs: {3, 3, 1, 0, 1, 0, 128} is not a variant of"},
  };
  for (const bad_case& c : cases) {
    test::temp_dir in, out;
    const std::string file = fixture_with(in, "bad.json", c.from, c.to);
    const auto r = emit({file}, out.path());
    EXPECT_EQ(r.exit_code, 0) << c.to << "\n" << r.output;
    EXPECT_TRUE(contains(r.output,
                         "emit: skipped the " + c.family + " tables of " + file + ": " + c.message))
        << c.to << "\n"
        << r.output;
    const std::string other = c.family == "attn_res" ? "mla_decode_epilogue" : "attn_res";
    EXPECT_TRUE(contains(r.output, other + ".h  (sm_90: ")) << r.output;
    EXPECT_FALSE(contains(r.output, other + ".h  (sm_90: no sweep")) << r.output;
  }
}

// A family's tables that do not match its current config (a sweep from before attn_res's knobs
// changed, issue 14) are skipped, naming the file and both knob lists; the input's other family
// is emitted, and another input's newer tables of the stale family are. With nothing left, exit 2.
TEST(emit, a_familys_stale_tables_are_skipped_and_the_rest_emitted) {
  const std::string new_knobs =
      R"("knobs": ["B", "GPW", "NC", "STAGE", "UNROLL", "STAGES", "TPC", "TRIGGER"])";
  const std::string old_knobs =
      R"("knobs": ["B", "THREADS", "EARLY_BLOCKS", "KEEP", "STAGE", "OCC", "TPC", "CVT", "NC", "SPREAD", "RED"])";
  const std::string config = (fs::path(KK3_CONFIG_DIR) / "attn_res.json").string();
  const std::string mismatch =
      "/families/attn_res/knobs: the knob names [B, THREADS, EARLY_BLOCKS, KEEP, STAGE, OCC, TPC, "
      "CVT, NC, SPREAD, RED] do not match " +
      config + " [B, GPW, NC, STAGE, UNROLL, STAGES, TPC, TRIGGER]";
  test::temp_dir in;
  const fs::path stale = in.path() / "stale.json";
  test::write_text(stale, replace(read_file(k_fixture), new_knobs, old_knobs));
  const std::string skipped = "emit: skipped the attn_res tables of " + stale.string() + ": " +
                              mismatch + " (sweep attn_res again with the current config)";
  const fs::path attn = fs::path("kk3tune") / "dispatch" / "attn_res.h";
  const fs::path mla = fs::path("kk3tune") / "dispatch" / "mla_decode_epilogue.h";

  test::temp_dir whole;  // the fixture alone: both families' tables
  ASSERT_EQ(emit({k_fixture.string()}, whole.path()).exit_code, 0);

  {  // The stale file alone: mla's tables, attn_res a reference-only header (none existed).
    test::temp_dir out;
    const auto r = emit({stale.string()}, out.path());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, skipped)) << r.output;
    auto tables = [](const std::string& header) {  // what follows the provenance block
      return header.substr(header.find("---- end of provenance ----"));
    };
    EXPECT_EQ(tables(read_file(out.path() / mla)), tables(read_file(whole.path() / mla)));
    const std::string header = read_file(out.path() / attn);
    const auto tuned = header.find("constexpr bool is_tuned(");
    ASSERT_NE(tuned, std::string::npos);
    EXPECT_FALSE(contains(header.substr(tuned, header.find("\n}", tuned) - tuned), "return true;"))
        << "attn_res got a table from the stale file";
    // Again over those headers and the whole fixture's: attn_res's header is not replaced with a
    // reference-only one (exit 2, nothing written).
    const auto again = emit({stale.string()}, whole.path());
    EXPECT_EQ(again.exit_code, 2) << again.output;
    EXPECT_TRUE(contains(again.output, "no input has a table of attn_res")) << again.output;
  }
  {  // With the fixture too: attn_res's tables come from the fixture, not from the stale file.
    test::temp_dir out;
    const auto r = emit({stale.string(), k_fixture.string()}, out.path());
    // The two inputs give the same mla tables: refused as two inputs with one table.
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "two inputs give the table mla_decode_epilogue")) << r.output;
    EXPECT_FALSE(contains(r.output, "two inputs give the table attn_res")) << r.output;
  }
  {  // Every table stale: nothing to emit, exit 2, nothing written.
    const fs::path all_stale = in.path() / "all-stale.json";
    std::string text = replace(read_file(stale), R"("knobs": ["SPLIT", "UNROLL")",
                               R"("knobs": ["UNROLL", "SPLIT")");
    test::write_text(all_stale, text);
    test::temp_dir out;
    const auto r = emit({all_stale.string()}, out.path());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, skipped.substr(0, 40))) << r.output;
    EXPECT_TRUE(contains(r.output, "skipped the mla_decode_epilogue tables of")) << r.output;
    EXPECT_TRUE(contains(r.output, "no input has a table that matches the current configs"))
        << r.output;
    EXPECT_FALSE(fs::exists(out.path() / "kk3tune")) << "nothing is written";
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
