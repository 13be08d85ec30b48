// Issue 17's friction list, one test each: what a new user tripped over on the command line.
// Every case runs the kk3tune binary with the driver hidden, so it behaves the same with or
// without a GPU. Each of these failed on main before issue 17.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

#include "core/gzip.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"
#include "sweep/sweep_config.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::run_kk3tune;

using test::contains;
using test::k_no_driver;

TEST(cli_friction, global_options_work_after_the_subcommand_too) {
  test::temp_dir dir;
  fs::copy(KK3_CONFIG_DIR, dir.path() / "configs", fs::copy_options::recursive);
  const std::string configs = (dir.path() / "configs").string();
  for (const auto& args :
       {std::vector<std::string>{"--config-dir", configs, "list", "--family", "attn_res"},
        std::vector<std::string>{"list", "--family", "attn_res", "--config-dir", configs},
        std::vector<std::string>{"list", "--config-dir", configs, "--family", "attn_res"}}) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, configs + "/attn_res.json"))
        << r.output;  // the folder given, not the search
  }
  const auto r = run_kk3tune(
      {"list", "--kernel-dir", "/nonexistent/kernels", "--config-dir", "/nonexistent/configs"},
      {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "/nonexistent/configs")) << r.output;
}

TEST(cli_friction, a_misspelt_subcommand_is_named_with_the_nearest_one) {
  auto r = run_kk3tune({"lst"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      contains(r.output, "kk3tune: usage error: no subcommand 'lst' (did you mean 'list'?)"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "the subcommands: doctor, list, compile")) << r.output;
  r = run_kk3tune({"--config-dir", "configs", "swep", "--out", "x.json"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "(did you mean 'sweep'?)")) << r.output;
  r = run_kk3tune({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "no subcommand 'frobnicate';")) << r.output;
  EXPECT_FALSE(contains(r.output, "did you mean")) << r.output;
  r = run_kk3tune({});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(
      r.output, "kk3tune: usage error: a subcommand is required: kk3tune SUBCOMMAND [OPTIONS]"))
      << r.output;
}

TEST(cli_friction, help_is_a_subcommand_word_too) {
  auto r = run_kk3tune({"help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Usage: kk3tune [OPTIONS] SUBCOMMAND")) << r.output;
  r = run_kk3tune({"help", "time"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--max-time")) << r.output;
  r = run_kk3tune({"help", "tiem"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kk3tune: usage error: help: no subcommand 'tiem'")) << r.output;
}

TEST(cli_friction, parser_errors_carry_the_usage_error_prefix) {
  for (const auto& args :
       {std::vector<std::string>{"time", "--family", "mla_decode_epilogue", "--bogus"},
        std::vector<std::string>{"compile", "--jobs", "many"},
        std::vector<std::string>{"compare", "a.json", "b.json", "--threshold"}}) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "kk3tune: usage error: ")) << r.output;
    EXPECT_TRUE(contains(r.output, "Run 'kk3tune " + args[0] + " --help' for the options."))
        << r.output;
  }
}

TEST(cli_friction, number_flags_say_what_they_expect_in_a_few_words) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"profile", "--family", "mla_decode_epilogue", "-n", "0"},
       "--iterations: '0': expected a positive integer"},
      {{"time", "--family", "mla_decode_epilogue", "--max-time", "0"},
       "--max-time: '0': expected a number above 0"},
      {{"time", "--family", "mla_decode_epilogue", "--min-samples", "2.5"},
       "--min-samples: '2.5': expected a positive integer"},
      {{"time", "--family", "mla_decode_epilogue", "--heads", "-1"},
       "--heads: '-1': expected a positive integer"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "kk3tune: usage error: " + message)) << r.output;
    EXPECT_LT(r.output.size(), 300u) << r.output;  // no 300-digit range of a double
  }
}

TEST(cli_friction, time_checks_its_arguments_before_looking_for_a_gpu) {
  const auto r =
      run_kk3tune({"time", "--family", "mla_decode_epilogue", "--heads", "0"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kk3tune: usage error: --heads: '0': expected a positive integer"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "no NVIDIA driver")) << r.output;
}

TEST(cli_friction, an_output_that_is_a_folder_or_an_input_is_refused_before_any_work) {
  test::temp_dir dir;
  // sweep --out naming a folder: refused at once, not after compiling everything, and no journal.
  auto r = run_kk3tune({"sweep", "--arch", "sm_90a", "--no-cache", "--out", dir.path().string()},
                       {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kk3tune: usage error: --out " + dir.path().string() +
                                     ": is a folder; name a file in it"))
      << r.output;
  EXPECT_FALSE(contains(r.output, "compile ")) << r.output;
  EXPECT_TRUE(fs::is_empty(dir.path()));
  // report --html naming its own input (by another path too): the input stays as it was.
  const fs::path input = dir.path() / "s.json";
  fs::copy_file(fs::path(KK3_FIXTURE_DIR) / "compare" / "sweep-base.json", input);
  const auto size = fs::file_size(input);
  for (const fs::path& html : {input, dir.path() / "." / "s.json"}) {
    r = run_kk3tune({"report", input.string(), "--html", html.string()}, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "kk3tune: usage error: --html " + html.string() +
                                       " would overwrite the results file (" + input.string() +
                                       ", the same file)"))
        << r.output;
  }
  EXPECT_EQ(fs::file_size(input), size);
  // merge --out naming one of its inputs, and time --json naming a folder.
  r = run_kk3tune({"merge", input.string(), "--out", input.string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--out " + input.string() + " would overwrite the results file"))
      << r.output;
  r = run_kk3tune({"time", "--family", "mla_decode_epilogue", "--json", dir.path().string()},
                  {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--json " + dir.path().string() + ": is a folder")) << r.output;
}

TEST(cli_friction, a_piped_compile_reports_progress_as_it_goes) {
  // Into a pipe (as here) compile printed nothing until its table at the end.
  const auto r = run_kk3tune(
      {"compile", "--family", "copy_example", "--arch", "sm_90a", "--no-cache", "-j", "2"},
      {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto first = r.output.find("compile ");
  const auto last = r.output.find(" (100%, ");
  const auto table = r.output.find("variant ");
  ASSERT_NE(first, std::string::npos) << r.output;
  ASSERT_NE(last, std::string::npos) << r.output;
  EXPECT_LT(last, table) << r.output;  // every progress line before the table
  std::size_t lines = 0;
  for (auto at = r.output.find("compile ", 0); at != std::string::npos && at < table;
       at = r.output.find("compile ", at + 1))
    ++lines;
  EXPECT_GE(lines, 9u) << r.output;                        // a line at each tenth
  EXPECT_FALSE(contains(r.output, "\033[K")) << r.output;  // no terminal escapes into a pipe
}

TEST(cli_friction, list_and_compile_take_format_json) {
  auto r = run_kk3tune({"list", "--format", "json"}, {k_no_driver});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j.at("kind"), "list");
  bool attn_res = false;
  for (const auto& f : j.at("families")) {
    if (f.at("family") != "attn_res") continue;
    attn_res = true;
    EXPECT_EQ(f.at("variants").size(), f.at("variants_per_mode").get<std::size_t>());
    EXPECT_EQ(f.at("knobs").at("B"), (std::vector<long long>{1, 2, 4, 7}));
    EXPECT_EQ(f.at("modes").size(), 25u);
    std::size_t references = 0;
    for (const auto& v : f.at("variants")) references += v.at("reference").get<bool>();
    EXPECT_EQ(references, 1u);
    EXPECT_EQ(f.at("reference"), "b1-gpw4-nc1-stage0-unroll1-stages1-tpc1-trigger0");
  }
  EXPECT_TRUE(attn_res) << r.output;

  test::temp_dir cache;
  r = run_kk3tune({"compile", "--family", "copy_example", "--arch", "sm_90a", "--cache-dir",
                   cache.path().string(), "--format", "json"},
                  {k_no_driver});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  j = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));  // after the progress lines
  EXPECT_EQ(j.at("kind"), "compile");
  EXPECT_EQ(j.at("failed"), 0);
  EXPECT_EQ(j.at("results").size(), j.at("compiles").get<std::size_t>());
  EXPECT_EQ(j.at("results")[0].at("status"), "ok");
  EXPECT_GT(j.at("results")[0].at("registers").get<int>(), 0);
  r = run_kk3tune({"list", "--format", "yaml"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(cli_friction, device_is_a_global_option_checked_before_any_work) {
  // The GPU was hard-coded to 0; --device N chooses it (tests/gpu/test_timing.cpp runs it on a
  // GPU).
  auto r =
      run_kk3tune({"time", "--family", "mla_decode_epilogue", "--device", "one"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      contains(r.output, "kk3tune: usage error: --device: 'one': expected a GPU number: 0, 1, ..."))
      << r.output;
  r = run_kk3tune({"--device", "1", "sweep", "--gpus", "0,1", "--out", "x.json"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--device and --gpus: choose one")) << r.output;
  r = run_kk3tune({"time", "--family", "mla_decode_epilogue", "--device", "1"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;  // without a driver: the environment, as before
}

TEST(cli_friction, sweep_takes_mode_and_variant_like_time) {
  test::temp_dir dir;
  const std::string out = (dir.path() / "m.json").string();
  auto r = run_kk3tune({"sweep", "--arch", "sm_90a", "--cache-dir", (dir.path() / "c").string(),
                        "--out", out, "--family", "attn_res", "--mode", "common_nb8,write_nb4",
                        "--variant", "b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"},
                       {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;  // no GPU: compiled, nothing timed
  EXPECT_TRUE(contains(r.output, "4 variant compiles for sm_90a"))
      << r.output;  // that variant and the reference, in two modes
  const nlohmann::json j = nlohmann::json::parse(read_file(out));
  std::set<std::string> modes, variants;
  for (const auto& rec : j.at("records")) {
    modes.insert(rec.at("mode").get<std::string>());
    variants.insert(rec.at("variant").get<std::string>());
  }
  EXPECT_EQ(modes, (std::set<std::string>{"common_nb8", "write_nb4"}));
  EXPECT_EQ(variants, (std::set<std::string>{"b1-gpw4-nc1-stage0-unroll1-stages1-tpc1-trigger0",
                                             "b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"}));
  // The command it prints can be pasted: the binary that ran, as the shell finds it from here
  // (not a bare kk3tune, which the PATH may not have), and the page beside the result, the name
  // scripts/run-main writes (issue 44, item 5).
  const std::string page = (dir.path() / "m.html").string();
  const std::size_t at = r.output.find(" report " + out + " --html " + page);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::size_t line = r.output.rfind('\n', at) + 1;
  const std::string binary = r.output.substr(line, at - line);
  std::size_t first = binary.find_first_not_of(' ');
  EXPECT_TRUE(fs::equivalent(binary.substr(first), KK3_BINARY)) << "'" << binary << "'";
  r = run_kk3tune({"sweep", "--arch", "sm_90a", "--out", out, "--mode", "nope"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kk3tune: usage error: --mode nope: no family of the plan"))
      << r.output;
  r = run_kk3tune({"sweep", "--arch", "sm_90a", "--out", out, "--variant", "x"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      contains(r.output, "--variant x: variant ids belong to one family: give --family too"))
      << r.output;
  r = run_kk3tune(
      {"sweep", "--arch", "sm_90a", "--out", out, "--family", "attn_res", "--variant", "nope"},
      {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--variant nope: no such variant of attn_res")) << r.output;
}

TEST(cli_friction, records_as_csv_with_a_column_per_knob) {
  test::temp_dir dir;
  // report --csv of a committed sweep (compressed, as the repository stores them).
  const fs::path sweep =
      fs::path(KK3_RESULTS_DIR) / "h200" / "regimes-2026-12-01" / "d-sweep1.json.gz";
  const fs::path csv = dir.path() / "records.csv";
  auto r = run_kk3tune({"report", sweep.string(), "--csv", csv.string()}, {k_no_driver});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(csv);
  const std::vector<std::string> lines = split(text.substr(0, text.size() - 1), '\n');
  ASSERT_GT(lines.size(), 1000u);
  EXPECT_EQ(lines[0].substr(0, 100),
            std::string("family,mode,heads,blocks,tokens,variant,reference,SPLIT,UNROLL,EARLY_"
                        "READS,CACHE_WAIT,ROWS_PER_WARP,TRIGGER_EARLY,THREADS,B,GPW")
                .substr(0, 100));
  EXPECT_TRUE(contains(lines[0], ",status,verification,median_us,")) << lines[0];
  // Every row has the header's columns (the objective's text holds commas and is quoted).
  const auto columns = [](const std::string& line) {
    std::size_t n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      n += c == ',' && !quoted;
    }
    return n;
  };
  for (const std::string& line : lines) ASSERT_EQ(columns(line), columns(lines[0])) << line;
  EXPECT_EQ(lines.size() - 1,
            nlohmann::json::parse(gunzip(sweep, read_file(sweep))).at("records").size());
  EXPECT_TRUE(contains(text,
                       "mla_decode_epilogue,bf16,16,,1,split1-unroll1-early_reads0-cache_wait1-"
                       "rows_per_warp1-trigger_early0-threads128,true,1,1,0,1,1,0,128,"))
      << lines[1];
  // Neither output: a usage error; sweep --csv writes the same beside its result.
  r = run_kk3tune({"report", sweep.string()}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "report: give --html FILE, --csv FILE or both")) << r.output;
  const std::string out = (dir.path() / "s.json").string(), scsv = (dir.path() / "s.csv").string();
  r = run_kk3tune(
      {"sweep", "--arch", "sm_90a", "--cache-dir", (dir.path() / "c").string(), "--out", out,
       "--family", "attn_res", "--mode", "common_nb8", "--variant", "reference", "--csv", scsv},
      {k_no_driver});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(read_file(scsv), "attn_res,common_nb8,")) << r.output;
}

TEST(cli_friction, a_percentage_reads_the_same_everywhere) {
  // "2%" means the same in the plan and on every percent flag; a bare number keeps each
  // place's old meaning (a fraction in the plan's selection, percent on the command line).
  EXPECT_DOUBLE_EQ(*parse_percent("2%"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_percent("2"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_percent(" 0.5 % "), 0.005);
  EXPECT_FALSE(parse_percent("two"));
  EXPECT_FALSE(parse_percent("%"));

  test::temp_dir dir;
  const auto plan = dir.path() / "plan.json";
  test::write_text(
      plan,
      R"({"families": {"attn_res": {}}, "selection": {"min_gain": "3%", "noise_floor": "1.5%"},
                            "timing": {"noise_percent": "0.25%"}})");
  auto c = sweep::load_sweep_config(plan);
  EXPECT_DOUBLE_EQ(c.selection.min_gain, 0.03);
  EXPECT_DOUBLE_EQ(c.selection.noise_floor, 0.015);
  EXPECT_DOUBLE_EQ(c.timing.noise_percent, 0.25);
  test::write_text(
      plan,
      R"({"families": {"attn_res": {}}, "selection": {"min_gain": 0.03}, "timing": {"noise_percent": 0.25}})");
  c = sweep::load_sweep_config(plan);
  EXPECT_DOUBLE_EQ(c.selection.min_gain, 0.03);
  EXPECT_DOUBLE_EQ(c.timing.noise_percent, 0.25);

  // compare --threshold 0.05 was read silently as 0.05%: now it says so.
  const std::string base = (fs::path(KK3_FIXTURE_DIR) / "compare" / "sweep-base.json").string();
  auto r = run_kk3tune({"compare", base, base, "--threshold", "0.05"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "kk3tune: note: --threshold 0.05 is read as 0.05% (a fraction of 0.0005); "
                       "write 5% for a fraction of 0.05"))
      << r.output;
  r = run_kk3tune({"compare", base, base, "--threshold", "5%"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "note:")) << r.output;
  r = run_kk3tune({"compare", base, base, "--threshold", "5x"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(
      r.output,
      "kk3tune: usage error: --threshold 5x: expected a percentage such as 5% (0% to 1000%)"))
      << r.output;
  // sweep --min-gain and time --noise take the same forms.
  r = run_kk3tune({"sweep", "--min-gain", "2x", "--out", (dir.path() / "o.json").string()},
                  {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--min-gain 2x: expected a percentage such as 5% (0% to 100%)"))
      << r.output;
  r = run_kk3tune({"time", "--family", "mla_decode_epilogue", "--noise", "0%"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--noise 0%: expected a percentage such as 5% (0.001% to 100%)"))
      << r.output;
}

}  // namespace
}  // namespace kk3
