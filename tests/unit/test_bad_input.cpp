// Bad input (issue 8, item 3): every bad input a user can give ends the run before any compile
// or GPU work, with exit 2 (bad input) or 3 (environment) and a message that names the file and
// the JSON path, or the flag. Each case runs the kk3tune binary with the driver hidden, so the
// tests behave the same with or without a GPU. README.md's "Bad input" table lists them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "families/limits.hpp"
#include "families/registry.hpp"
#include "jit/toolkit.hpp"
#include "space/config.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::run_kk3tune;

using test::contains;
using test::k_no_driver;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A copy of configs/ in a temporary folder, with one file's text edited.
class config_copy {
 public:
  config_copy() { fs::copy(KK3_CONFIG_DIR, m_dir.path() / "configs", fs::copy_options::recursive); }
  fs::path dir() const { return m_dir.path() / "configs"; }
  fs::path file(const std::string& name) const { return dir() / name; }
  /// Replaces the first `from` in configs/<name> with `to` (the text must be there).
  void edit(const std::string& name, const std::string& from, const std::string& to) const {
    std::string text = read_text(file(name));
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << name << ": " << from;
    test::write_text(file(name), text.replace(at, from.size(), to));
  }
  /// A scratch folder beside the configs, for outputs.
  fs::path scratch() const { return m_dir.path(); }

 private:
  test::temp_dir m_dir;
};

/// Runs kk3tune with the driver hidden and checks its exit code and that its output holds every
/// one of `parts`.
void expect_run(const std::vector<std::string>& args, int exit_code,
                const std::vector<std::string>& parts) {
  const auto r = run_kk3tune(args, {k_no_driver});
  EXPECT_EQ(r.exit_code, exit_code) << r.output;
  for (const std::string& part : parts)
    EXPECT_TRUE(contains(r.output, part)) << "expected: " << part << "\n" << r.output;
  // Nothing was compiled or launched: the no-GPU sweep would announce its compiles first.
  EXPECT_FALSE(contains(r.output, "compiling every variant")) << r.output;
}

/// `sweep` with the plan of `c` (configs/default.json there), writing `out` (default: into its
/// scratch folder).
std::vector<std::string> sweep_args(const config_copy& c, std::vector<std::string> more = {},
                                    fs::path out = {}) {
  if (out.empty()) out = c.scratch() / "out.json";
  std::vector<std::string> args = {"--config-dir", c.dir().string(), "sweep", "--arch",
                                   "sm_90a",       "--no-cache",     "--out", out.string()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// 1. Unknown keys, at any level of a family config and of the plan.
TEST(bad_input, unknown_keys_name_file_and_path) {
  config_copy c;
  c.edit("copy_example.json", "\"constraints\"", "\"constraint\"");
  expect_run(
      {"--config-dir", c.dir().string(), "compile", "--family", "copy_example", "--arch", "sm_90a",
       "--no-cache"},
      2, {"config error: " + c.file("copy_example.json").string() + ": /constraint: unknown key"});

  config_copy p;
  p.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": \"all\", \"head\": [16]}");
  expect_run(sweep_args(p), 2,
             {p.file("default.json").string() + ": /families/attn_res/head: unknown key"});
  config_copy q;
  q.edit("default.json", "\"max_time_s\"", "\"max_time\"");
  expect_run(sweep_args(q), 2,
             {q.file("default.json").string() + ": /timing/max_time: unknown key"});
  config_copy r;
  r.edit("attn_res.json", "\"reference\": {\"B\": 1,", "\"reference\": {\"b\": 1, \"B\": 1,");
  expect_run(sweep_args(r, {"--family", "attn_res"}), 2,
             {r.file("attn_res.json").string() + ": /reference/b: unknown knob"});
}

// 2. Empty spaces: a knob with no values, a plan with no families, modes or token counts.
TEST(bad_input, empty_spaces_name_file_and_path) {
  config_copy c;
  c.edit("copy_example.json", "\"UNROLL\": [1, 2, 4]", "\"UNROLL\": []");
  expect_run(
      {"--config-dir", c.dir().string(), "list", "--all", "--family", "copy_example"}, 2,
      {c.file("copy_example.json").string() + ": /knobs/UNROLL: expected a non-empty array"});

  config_copy f;
  {  // The plan without its families: from "families": { to the end of its last one.
    const std::string last = "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}";
    std::string text = read_text(f.file("default.json"));
    const auto from = text.find('{', text.find("\"families\"")) + 1, to = text.find(last);
    ASSERT_NE(to, std::string::npos);
    test::write_text(f.file("default.json"), text.erase(from, to + last.size() - from));
  }
  expect_run(sweep_args(f), 2,
             {f.file("default.json").string() + ": /families: expected at least one family"});
  config_copy m;
  m.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": []}");
  expect_run(sweep_args(m), 2,
             {m.file("default.json").string() +
              ": /families/attn_res/modes: expected \"all\" or a non-empty array of mode names"});
  config_copy t;
  t.edit("default.json",
         "[1, 2, 4, 8, 16, 32, 48, 64, 65, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096, 8192]",
         "[]");
  expect_run(sweep_args(t), 2,
             {t.file("default.json").string() + ": /tokens: expected a non-empty array"});
  config_copy d;
  d.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": [\"common_nb1\", \"common_nb1\"]}");
  expect_run(sweep_args(d), 2,
             {d.file("default.json").string() +
              ": /families/attn_res/modes/1: duplicate value \"common_nb1\""});
}

// 3. Constraints that leave no variant: said at /constraints, not as a bad reference.
TEST(bad_input, constraints_that_leave_no_variant) {
  config_copy c;
  c.edit("copy_example.json", "\"constraints\": []", "\"constraints\": [\"UNROLL > 8\"]");
  expect_run(
      {"--config-dir", c.dir().string(), "compile", "--family", "copy_example", "--arch", "sm_90a",
       "--no-cache"},
      2,
      {c.file("copy_example.json").string() +
       ": /constraints/0: the constraints leave no variant: UNROLL > 8 holds for no combination"});
  config_copy both;  // each satisfiable alone, not together
  both.edit("copy_example.json", "\"constraints\": []",
            "\"constraints\": [\"UNROLL == 1\", \"UNROLL == 2\"]");
  expect_run({"--config-dir", both.dir().string(), "compile", "--family", "copy_example", "--arch",
              "sm_90a", "--no-cache"},
             2,
             {both.file("copy_example.json").string() +
              ": /constraints: the constraints leave no variant"});
}

// 4. Unknown families and modes, in the plan and in the flags of sweep, time and verify.
TEST(bad_input, unknown_families_and_modes) {
  config_copy c;
  c.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": \"all\"}, \"attn\": {}");
  expect_run(
      sweep_args(c), 2,
      {c.file("default.json").string() + ": /families/attn: unknown family 'attn' (known: "});
  config_copy m;
  m.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": [\"common_nb1\", \"common_nb9\"]}");
  expect_run(sweep_args(m), 2,
             {m.file("default.json").string() +
              ": /families/attn_res/modes: no mode 'common_nb9' (modes: write_nb0, write_nb1"});

  expect_run({"sweep", "--family", "attn", "--arch", "sm_90a"}, 2,
             {"--family: the plan ", "has no family 'attn'"});
  expect_run({"sweep", "--arch", "sm_90a", "--inject-fault", "nope=hang"}, 2,
             {"--inject-fault nope: no such variant"});
  expect_run({"sweep", "--arch", "sm_90a", "--inject-fault", "nope"}, 2,
             {"--inject-fault nope: expected VARIANT=KIND"});
  for (const char* command : {"time", "verify"}) {
    expect_run({command, "--family", "attn"}, 2,
               {"unknown family 'attn' (known: mla_decode_epilogue, attn_res"});
    expect_run({command, "--family", "attn_res", "--mode", "common_nb9"}, 2,
               {"family attn_res has no mode 'common_nb9' (its modes: write_nb0"});
  }
}

// An objective (docs/objective.md) that is not one: in the plan, a chain model flag, a baseline.
TEST(bad_input, objectives_and_baselines) {
  config_copy c;
  c.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": \"all\", \"objective\": {\"producer\": {\"trigger\": "
         "\"later\"}}}");
  expect_run(sweep_args(c), 2,
             {c.file("default.json").string() +
              ": /families/attn_res/objective/producer/trigger: expected \"start\", \"end\", "
              "\"never\" or a fraction from 0 to 1"});
  config_copy m;
  m.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
         "\"attn_res\": {\"modes\": \"all\", \"objective\": \"fastest\"}");
  expect_run(sweep_args(m), 2, {"/families/attn_res/objective: unknown timing mode \"fastest\""});
  expect_run({"time", "--family", "attn_res", "--timing", "chain", "--consumer-reads", "all"}, 2,
             {"--consumer-reads: expected \"outputs\", \"written\" or \"none\""});
  expect_run({"time", "--family", "attn_res", "--timing", "graph", "--producer-us", "3"}, 2,
             {"--producer-us models the chain: it needs --timing chain"});
  expect_run({"time", "--family", "attn_res", "--timing", "graph", "--chain-workspaces", "4"}, 2,
             {"--chain-workspaces spreads the chains over workspaces: it needs --timing chain"});
  expect_run({"time", "--family", "attn_res", "--timing", "chain", "--chain-workspaces", "0"}, 2,
             {"--chain-workspaces: '0': expected 1 to 64"});
  config_copy b;
  expect_run(sweep_args(b, {"--baseline", (b.scratch() / "none.json").string()}), 2,
             {"--baseline: ", "none.json"});
  const std::string time_file = (fs::path(KK3_FIXTURE_DIR) / "compare" / "time-base.json").string();
  expect_run(sweep_args(b, {"--baseline", time_file}), 2,
             {"--baseline " + time_file + ": kind \"time\", not a sweep"});
}

// 5. Token counts: below 1, or beyond what a family's buffers take (families/limits.hpp).
TEST(bad_input, token_counts_below_one_or_beyond_the_buffers) {
  config_copy z;
  z.edit("default.json", "\"tokens\": [1, 2,", "\"tokens\": [0, 2,");
  expect_run(sweep_args(z), 2,
             {z.file("default.json").string() + ": /tokens/0: expected a positive integer"});
  config_copy big;
  big.edit("default.json", "2048, 4096, 8192]", "2048, 4096, 8192, 1000000]");
  expect_run(sweep_args(big), 2,
             {big.file("default.json").string() +
              ": /tokens/19: T=1000000 is more than mla_decode_epilogue in mode bf16 at H=16 takes "
              "(at most "});
  config_copy v;
  v.edit("default.json", "\"verify\": {\"tokens\": [65]}",
         "\"verify\": {\"tokens\": [65, 1000000]}");
  expect_run(sweep_args(v), 2,
             {v.file("default.json").string() + ": /verify/tokens/1: T=1000000 is more than"});
  config_copy h;
  h.edit("default.json", "\"heads\": [16]", "\"heads\": [16, 1000000000]");
  expect_run(sweep_args(h), 2,
             {h.file("default.json").string() +
              ": /families/mla_decode_epilogue/shapes/heads/1: mla_decode_epilogue in mode bf16 at "
              "H=1000000000 takes no token at all"});

  config_copy c;
  expect_run(sweep_args(c, {"--tokens", "0"}), 2, {"--tokens: '0': expected a positive integer"});
  // --tokens is read as strictly as a plan's /tokens: no empty element, no value twice
  expect_run(sweep_args(c, {"--tokens", "1,,2"}), 2, {"--tokens: element 2 of 3 is empty"});
  expect_run(sweep_args(c, {"--tokens", "1,"}), 2, {"--tokens: element 2 of 2 is empty"});
  expect_run(sweep_args(c, {"--tokens", "1,1"}), 2,
             {"--tokens: element 2 of 2: T=1 is given twice (also element 1)"});
  expect_run({"verify", "--family", "attn_res", "--tokens", "8", "--tokens", "4,8"}, 2,
             {"--tokens: element 3 of 3: T=8 is given twice (also element 1)"});
  expect_run(sweep_args(c, {"--tokens", "64,400000"}), 2,
             {"--tokens: T=400000 is more than attn_res in mode write_nb0 at NB=0 takes"});
  expect_run({"time", "--family", "attn_res", "--tokens", "-5"}, 2,
             {"--tokens: '-5': expected a positive integer"});
  expect_run(
      {"time", "--family", "attn_res", "--mode", "common_nb8", "--tokens", "100000"}, 2,
      {"--tokens: T=100000 is more than attn_res in mode common_nb8 at NB=8 takes (at most "});
  expect_run(
      {"verify", "--family", "attn_res", "--tokens", "100000"}, 2,
      {"--tokens: T=100000 is more than attn_res in mode write_nb7 at NB=7 takes (at most "});
  expect_run({"verify", "--family", "mla_decode_epilogue", "--heads", "100000000"}, 2,
             {"--heads: mla_decode_epilogue in mode bf16 at H=100000000 takes no token at all"});
}

// The limit itself: the largest T moves at most 16 GiB, one more token moves more.
// Model dimensions by name (issue 15): a plan's "shapes" and the --shape, --heads and --blocks
// flags are checked against the dimensions the family names; nothing is guessed.
TEST(bad_input, shape_dimensions_are_the_familys_own) {
  config_copy unknown;
  unknown.edit("default.json", "\"shapes\": {\"heads\": [16]}", "\"shapes\": {\"experts\": [8]}");
  expect_run(sweep_args(unknown), 2,
             {unknown.file("default.json").string() +
              ": /families/mla_decode_epilogue/shapes/experts: mla_decode_epilogue takes no "
              "experts (it takes heads)"});
  config_copy fixed;
  fixed.edit("default.json", "\"attn_res\": {\"modes\": \"all\", \"objective\": \"chain\"}",
             "\"attn_res\": {\"modes\": \"all\", \"shapes\": {\"blocks\": [4]}}");
  expect_run(
      sweep_args(fixed), 2,
      {fixed.file("default.json").string() + ": /families/attn_res/shapes/blocks: attn_res takes "
                                             "no blocks from a plan or a flag (its mode sets it)"});
  config_copy twice;
  twice.edit("default.json", "\"shapes\": {\"heads\": [16]}",
             "\"shapes\": {\"heads\": [16]}, \"heads\": [8]");
  expect_run(sweep_args(twice), 2,
             {twice.file("default.json").string() +
              ": /families/mla_decode_epilogue/heads: given twice (also in /shapes)"});
  config_copy low;
  low.edit("default.json", "\"shapes\": {\"heads\": [16]}", "\"shapes\": {\"heads\": [16, 0]}");
  expect_run(sweep_args(low), 2,
             {low.file("default.json").string() +
              ": /families/mla_decode_epilogue/shapes/heads/1: heads 0 is below 1"});

  for (const char* command : {"time", "profile"}) {
    expect_run({command, "--family", "mla_decode_epilogue", "--shape", "experts=8"}, 2,
               {"--shape experts: mla_decode_epilogue has no dimension experts (it has heads, "
                "block_size)"});
    expect_run({command, "--family", "mla_decode_epilogue", "--shape", "heads"}, 2,
               {"--shape heads: expected NAME=V"});
    expect_run({command, "--family", "mla_decode_epilogue", "--shape", "heads=x"}, 2,
               {"--shape heads=x: 'x' is not an integer"});
    expect_run({command, "--family", "mla_decode_epilogue", "--shape", "heads=0"}, 2,
               {"--shape heads: 0 is below 1"});
    expect_run({command, "--family", "mla_decode_epilogue", "--shape", "heads=8", "--heads", "16"},
               2, {"heads given twice"});
    expect_run({command, "--family", "attn_res", "--mode", "post_nb4", "--blocks", "3"}, 2,
               {"blocks: NB=3 is not mode post_nb4's (NB=4); attn_res's NB is set by the mode"});
    expect_run({command, "--family", "copy_example", "--heads", "16"}, 2,
               {"--heads: copy_example has no dimension heads (it has none)"});
  }
  expect_run({"verify", "--family", "attn_res", "--blocks", "9"}, 2,
             {"--blocks: no mode of family attn_res has those values"});
  expect_run(
      {"verify", "--family", "mla_decode_epilogue", "--shape", "heads=1000000000,16"}, 2,
      {"--shape heads: mla_decode_epilogue in mode bf16 at H=1000000000 takes no token at all"});
}

TEST(bad_input, the_token_limit_is_where_a_call_passes_16_gib) {
  // Every registered family, the test families too: their configs are in KK3_ALL_CONFIG_DIR.
  for (const families::family* f : families::all_families()) {
    const auto space = families::load_family_space(*f, KK3_ALL_CONFIG_DIR);
    for (const auto& m : space.config.modes) {
      const long long most = families::max_tokens(*f, m, {});
      ASSERT_GE(most, 8192) << f->name() << "/" << m.name
                            << ": the default sweep's largest T must fit";
      if (f->name() == "empty_example") continue;  // moves nothing: the int limit alone
      EXPECT_LE(f->bytes_moved(f->model_shape(most, m, {}), m), families::k_max_call_bytes)
          << f->name() << "/" << m.name;
      EXPECT_GT(f->bytes_moved(f->model_shape(most + 1, m, {}), m), families::k_max_call_bytes)
          << f->name() << "/" << m.name;
      EXPECT_TRUE(families::token_limit_problem(*f, m, most, {}).empty());
      EXPECT_FALSE(families::token_limit_problem(*f, m, most + 1, {}).empty());
    }
  }
}

// 6. An arch NVRTC does not know: bad usage (2), for sweep without a GPU and for compile.
TEST(bad_input, an_arch_nvrtc_does_not_know) {
  config_copy c;
  std::vector<std::string> args = sweep_args(c, {"--family", "attn_res", "--tokens", "1"});
  args[4] = "sm_91x";  // --arch
  expect_run(args, 2, {"--arch: 'sm_91x' is not an arch name"});
  args[4] = "sm_5";  // an arch name, not one this NVRTC compiles for
  expect_run(args, 2, {"--arch: NVRTC ", "does not know 'sm_5' (it supports sm_"});
  expect_run({"compile", "--arch", "sm_5", "--no-cache"}, 2, {"does not know 'sm_5'"});
  // An arch number beyond an int was an uncaught std::out_of_range.
  expect_run({"compile", "--arch", "sm_99999999999999999999", "--no-cache"}, 2,
             {"is not an arch NVRTC could know"});
}

// An arch older than a family's kernel needs (griddepcontrol: sm_90) is refused at once, naming
// the family and why, not by each of hundreds of compiles (issue 25, item 2).
TEST(bad_input, an_arch_older_than_a_family_needs) {
  const std::string why =
      "need sm_90 or newer for griddepcontrol (programmatic dependent launch, "
      "kernels/common/pdl.cuh)";
  expect_run({"compile", "--arch", "sm_80", "--no-cache"}, 2,
             {"kk3tune: usage error: --arch sm_80: mla_decode_epilogue, attn_res, copy_example, "
              "empty_example " +
                  why,
              "nothing was compiled"});
  expect_run({"compile", "--family", "attn_res", "--arch", "sm_90a,sm_86", "--no-cache"}, 2,
             {"--arch sm_86: attn_res needs sm_90 or newer for griddepcontrol"});
  config_copy c;
  std::vector<std::string> args = sweep_args(c);
  args[4] = "sm_80";  // --arch
  expect_run(args, 2, {"--arch sm_80: mla_decode_epilogue, attn_res " + why});
  EXPECT_FALSE(
      fs::exists(c.scratch() / "out.json.journal"));  // refused before the journal is started
  args.insert(args.end(), {"--family", "attn_res"});
  expect_run(args, 2, {"--arch sm_80: attn_res needs sm_90 or newer"});
  // Neither a compile nor its progress ran: the refusal is the whole output.
  const auto r = run_kk3tune({"compile", "--arch", "sm_80", "--no-cache"}, {k_no_driver});
  EXPECT_LT(r.output.size(), 400u) << r.output;
  EXPECT_FALSE(contains(r.output, "compile 1")) << r.output;
}

// 7. No CUDA include folder: a compile environment problem (3) that says how to fix it.
TEST(bad_input, a_missing_cuda_include_folder_says_how_to_fix_it) {
  test::temp_dir empty;
  try {
    jit::first_cuda_include_dir({{empty.path() / "include", "from $CUDA_HOME"}});
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(exit_code_for(e.kind()), k_exit_environment);
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "no CUDA include folder with cuda_fp16.h")) << what;
    EXPECT_TRUE(contains(what, "set CUDA_HOME")) << what;
    EXPECT_TRUE(contains(what, (empty.path() / "include").string() + " (from $CUDA_HOME)")) << what;
  }
}

// 8. An output that cannot be written: refused before any work, naming the flag and the folder.
TEST(bad_input, unwritable_outputs_are_refused_before_any_work) {
  config_copy c;
  const fs::path file = c.scratch() / "a-file";
  test::write_text(file, "not a folder");
  const fs::path missing = c.scratch() / "missing";
  const std::string sweep_result = std::string(KK3_FIXTURE_DIR) + "/sweep/mini-h200.json";

  expect_run(sweep_args(c, {"--family", "attn_res", "--tokens", "1"}, missing / "x.json"), 2,
             {"io error: --out " + (missing / "x.json").string() +
              ": cannot be written (no folder " + missing.string() + ")"});
  expect_run(sweep_args(c, {"--family", "attn_res", "--tokens", "1"}, file / "x.json"), 2,
             {"--out " + (file / "x.json").string() + ": cannot be written (" + file.string() +
              " is not a folder)"});
  expect_run({"time", "--family", "attn_res", "--json", (missing / "t.json").string()}, 2,
             {"--json " + (missing / "t.json").string() + ": cannot be written (no folder " +
              missing.string() + ")"});
  expect_run({"report", sweep_result, "--html", (file / "r.html").string()}, 2,
             {"--html " + (file / "r.html").string() + ": cannot be written (" + file.string() +
              " is not a folder)"});
  expect_run({"emit", sweep_result, "--out", (file / "dir").string()}, 2,
             {"--out " + (file / "dir").string() + ": cannot be written (" + file.string() +
              " is not a folder)"});
  if (::geteuid() != 0) {  // root writes into a read-only folder; a read-only mount is not portable
    const fs::path locked = c.scratch() / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    expect_run({"report", sweep_result, "--html", (locked / "r.html").string()}, 2,
               {"--html " + (locked / "r.html").string() + ": cannot be written (folder " +
                locked.string() + ": Permission denied)"});
    fs::permissions(locked, fs::perms::owner_all);
  }
}

// 9. Result files: truncated, mistyped or missing fields, named by file and JSON path (exit 2).
TEST(bad_input, broken_result_files_name_file_and_path) {
  test::temp_dir dir;
  const std::string text = read_text(fs::path(KK3_FIXTURE_DIR) / "report" / "sweep.json");
  const fs::path truncated = dir.path() / "truncated.json";
  test::write_text(truncated, text.substr(0, 3000));
  const fs::path html = dir.path() / "r.html";
  expect_run(
      {"report", truncated.string(), "--html", html.string()}, 2,
      {truncated.string() + ": /records/", ": not valid JSON: the file ends early (truncated?)"});
  expect_run({"compare", truncated.string(), truncated.string()}, 2,
             {truncated.string() + ": /records/"});

  // The first record's "tokens" as a string; the first record without its "variant".
  std::string mistyped = text;
  const auto tokens = mistyped.find("\"tokens\":", mistyped.find("\"records\""));
  ASSERT_NE(tokens, std::string::npos);
  mistyped.insert(mistyped.find_first_of("0123456789", tokens), "\"");
  mistyped.insert(
      mistyped.find_first_not_of("0123456789", mistyped.find_first_of("0123456789", tokens)), "\"");
  const fs::path wrong = dir.path() / "wrong-type.json";
  test::write_text(wrong, mistyped);
  expect_run({"report", wrong.string(), "--html", html.string()}, 2,
             {wrong.string() + ": /records/0/tokens: expected an integer"});

  std::string without = text;
  const auto variant = without.find("\"variant\":", without.find("\"records\""));
  ASSERT_NE(variant, std::string::npos);
  without.replace(variant, 10, "\"variant_\":");
  const fs::path missing = dir.path() / "missing-field.json";
  test::write_text(missing, without);
  expect_run({"compare", missing.string(), missing.string()}, 2,
             {missing.string() + ": /records/0/variant: missing"});
  EXPECT_FALSE(fs::exists(html)) << "nothing is written when the input is bad";
}

// A corrupt input file (truncated JSON, gzip garbage) is an input error, not a usage error, for
// every command that reads results (issue 25, item 5); the exit code stays 2.
TEST(bad_input, corrupt_inputs_are_input_errors) {
  test::temp_dir dir;
  const std::string text = read_text(fs::path(KK3_FIXTURE_DIR) / "report" / "sweep.json");
  const fs::path truncated = dir.path() / "truncated.json",
                 garbage = dir.path() / "garbage.json.gz";
  test::write_text(truncated, text.substr(0, 3000));
  test::write_text(garbage,
                   std::string("\x1f\x8b\x08\x00") + "not deflate data at all, just bytes");
  config_copy c;
  for (const fs::path& bad : {truncated, garbage}) {
    const std::string f = bad.string();
    for (const auto& args :
         {std::vector<std::string>{"report", f, "--csv", (dir.path() / "r.csv").string()},
          std::vector<std::string>{"compare", f, f},
          std::vector<std::string>{"emit", f, "--out", dir.path().string()},
          std::vector<std::string>{"merge", f, "--out", (dir.path() / "m.json").string()},
          sweep_args(c, {"--baseline", f})}) {
      expect_run(args, 2,
                 {"kk3tune: input error: ", f + ": "});  // --baseline: FILE: ... for a baseline
      EXPECT_FALSE(contains(run_kk3tune(args, {k_no_driver}).output, "usage error")) << args[0];
    }
  }
  expect_run({"report", garbage.string(), "--csv", (dir.path() / "r.csv").string()}, 2,
             {"(gzip data); check the file with gzip -t"});
}

}  // namespace
}  // namespace kk3
