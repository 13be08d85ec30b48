// `kk3tune merge`: hand-built sweep documents of a three-item plan, written whole and as two
// shards; the merge of the shards must be the whole document, and every conflict a refusal
// (exit 2) that names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/gzip.hpp"
#include "core/text.hpp"
#include "merge/merge.hpp"
#include "results/objective.hpp"
#include "results/reader.hpp"
#include "results/sweep_file.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using test::run_kk3tune;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The plan's items: (mode, heads); bf16 has two, so its compiles sit on its first item only.
struct item {
  const char* mode;
  long long heads;
};
constexpr item k_items[] = {{"bf16", 8}, {"bf16", 16}, {"fp8", 8}};
constexpr long long k_compiles[] = {5, 0, 3};  // a mode's compiles on its first item
constexpr long long k_failures[] = {0, 0, 1};

std::string key_of(std::size_t i) {
  return "mla_decode_epilogue/" + std::string(k_items[i].mode) +
         "/heads=" + std::to_string(k_items[i].heads);
}

double rounded(double x) {
  return std::round(x * 1e6) / 1e6;
}

// The records of item i: a compile-only record on a mode's first item, then two token counts,
// timed and verified.
void add_records(json& records, std::size_t i, double ceiling_tb_s) {
  const item& it = k_items[i];
  auto record = [&](long long tokens, const std::string& status, double tb_s) {
    const bool timed = status == "ok";
    const json stats = {{"samples", 12},    {"min_us", 1.5},
                        {"median_us", 1.6}, {"mean_us", 1.625},
                        {"p10_us", 1.5},    {"p90_us", 1.7},
                        {"max_us", 1.9},    {"stdev_us", 0.1234},
                        {"iqr_us", 0.1},    {"rel_stderr_median", 0.004321}};
    const json verified = {{"status", "ok"},
                           {"seed", 7},
                           {"checks", 3},
                           {"shapes", {"T1-H" + std::to_string(it.heads)}},
                           {"first_mismatch", nullptr}};
    return json{{"family", "mla_decode_epilogue"},
                {"mode", it.mode},
                {"tokens", tokens},
                {"shape", {{"heads", it.heads}}},
                {"variant", "s" + std::to_string(i)},
                {"knobs", {{"SPLIT", 1}}},
                {"reference", false},
                {"status", status},
                {"reason", ""},
                {"rounds", 1},
                {"verification", timed ? verified : json(nullptr)},
                {"statistics", timed ? stats : json(nullptr)},
                {"samples_us", timed ? json{1.6, 1.5} : json::array()},
                {"bytes_moved", 1000.0 * static_cast<double>(i + 1)},
                {"achieved_tb_s", rounded(tb_s)},
                {"fraction_of_ceiling", rounded(tb_s / ceiling_tb_s)}};
  };
  if (k_compiles[i] > 0) records.push_back(record(0, "unverified", 0.0));
  records.push_back(record(1, "ok", 0.123457 * static_cast<double>(i + 1)));
  records.push_back(record(64, "ok", 1.234567 * static_cast<double>(i + 1)));
}

json dispatch_of(std::size_t i) {
  const json range = {
      {"min_tokens", 1},         {"max_tokens", 64},     {"variant", "s" + std::to_string(i)},
      {"knobs", {{"SPLIT", 1}}}, {"runner_up", nullptr}, {"margin", 0.0},
      {"incumbent_kept", false}, {"tokens", {1, 64}}};
  return {{"family", "mla_decode_epilogue"},
          {"mode", k_items[i].mode},
          {"shape", {{"heads", k_items[i].heads}}},
          {"ranges", {range}}};
}

// The families block and each family's objective, as the sweep writes them.
json objective_json() {
  return results::to_json(results::objective{});
}

// A sweep result covering `covered` (all items: the unsharded file) at shard `index`/`count`:
// every field the sweep writes (schema 3), so that a merge that dropped one would show.
json sweep_doc(const std::vector<std::size_t>& covered, int index, int count, double ceiling_tb_s,
               const std::string& time) {
  json items = json::array();
  for (std::size_t i = 0; i < std::size(k_items); ++i) items.push_back(key_of(i));
  long long compiles = 0, failures = 0;
  json records = json::array(), dispatch = json::array();
  for (const std::size_t i : covered) {
    compiles += k_compiles[i];
    failures += k_failures[i];
    add_records(records, i, ceiling_tb_s);
    dispatch.push_back(dispatch_of(i));
  }
  json doc = {{"schema_version", 3}, {"kind", "sweep"}};
  doc["context"] = {
      {"gpu",
       {{"name", "NVIDIA H200"},
        {"pci_bus_id", "0000:00:06.0"},
        {"compute_capability", "9.0"},
        {"arch", "sm_90a"},
        {"sm_count", 132},
        {"l2_bytes", 62914560},
        {"memory_bytes", 150109880320LL},
        {"max_sm_clock_mhz", 1980},
        {"max_memory_clock_mhz", 3201},
        {"driver_version", "13.0"},
        {"sm_clock_mhz", 1980},
        {"memory_clock_mhz", 3201}}},
      {"nvrtc_version", "13.0"},
      {"tool_version", "0.1.0"},
      {"git_revision", "0123456789ab"},
      {"argv",
       {"kk3tune", "sweep", "--shard", std::to_string(index) + "/" + std::to_string(count)}},
      {"utc_time", time},
      {"figures", {{"copy_ceiling_tb_s", ceiling_tb_s}, {"empty_kernel_us", 2.25}}}};
  doc["plan"] = {
      {"config", "plan.json"},
      {"tokens", {1, 64}},
      {"archs", {"sm_90a"}},
      {"min_gain", 0.02},
      {"noise_sigmas", 2.0},
      {"noise_floor", 0.015},
      {"timed", true},
      {"copy_ceiling_tb_s", ceiling_tb_s},
      {"compiles", compiles},
      {"compile_failures", failures},
      {"wall_s", 10.5 + index},
      {"digest", "00112233445566778899aabbccddeeff"},
      {"objective", {{"mla_decode_epilogue", objective_json()}}},
      {"baseline", nullptr},
      {"items", items},
      {"shard",
       count == 0 ? json(nullptr) : json{{"index", index}, {"count", count}, {"items", covered}}}};
  doc["families"] = {{"mla_decode_epilogue",
                      {{"knobs", {"SPLIT"}},
                       {"entry", "mla<{SPLIT}>"},
                       {"source", "mla.cuh"},
                       {"shape_keys", {"heads"}},
                       {"reference", {{"variant", "s0"}, {"knobs", {{"SPLIT", 1}}}}},
                       {"modes", {{"bf16", {{"FP8", "0"}}}, {"fp8", {{"FP8", "1"}}}}},
                       {"objective", objective_json()}}}};
  doc["records"] = records;
  doc["dispatch"] = dispatch;
  return doc;
}

json whole() {
  return sweep_doc({0, 1, 2}, 0, 0, 4.0, "2026-12-02T00:00:00Z");
}
// Shard 2 measured a lower copy ceiling: its fractions are rescaled to shard 1's.
json shard_1() {
  return sweep_doc({0}, 1, 2, 4.0, "2026-12-02T01:00:00Z");
}
json shard_2() {
  return sweep_doc({1, 2}, 2, 2, 3.5, "2026-12-02T02:00:00Z");
}

// What a merge may change: the run's argv and times, and the shard fields.
json comparable(json doc) {
  doc["context"].erase("argv");
  doc["context"].erase("utc_time");
  for (const char* key : {"wall_s", "shard", "merged_from"}) doc["plan"].erase(key);
  return doc;
}

fs::path write_doc(const test::temp_dir& dir, const std::string& name, const json& doc) {
  const fs::path file = dir.path() / name;
  test::write_text(file, results::sweep_text(doc));
  return file;
}

test::command_result merge(const std::vector<fs::path>& inputs, const fs::path& out) {
  std::vector<std::string> args = {"merge"};
  for (const fs::path& p : inputs) args.push_back(p.string());
  args.insert(args.end(), {"--out", out.string()});
  return run_kk3tune(args);
}

TEST(merge, the_shards_merge_into_the_unsharded_file) {
  const test::temp_dir dir;
  // Given in reverse: the context comes from shard 1 whatever the order.
  const fs::path b = write_doc(dir, "b.json", shard_2()), a = write_doc(dir, "a.json", shard_1());
  const fs::path out = dir.path() / "m.json";
  const auto r = merge({b, a}, out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(out);
  const json merged = json::parse(text);
  EXPECT_EQ(results::sweep_text(comparable(merged)), results::sweep_text(comparable(whole())));
  EXPECT_EQ(text, results::sweep_text(merged))
      << "the layout is the sweep writer's: one record per line";
  EXPECT_EQ(merged["context"]["utc_time"], "2026-12-02T01:00:00Z");
  EXPECT_EQ(merged["context"]["argv"].back(), out.string());
  EXPECT_EQ(merged["plan"]["wall_s"], 12.5);
  EXPECT_TRUE(merged["plan"]["shard"].is_null());
  const json from = {
      {{"file", a.string()}, {"shard", "1/2"}, {"utc_time", "2026-12-02T01:00:00Z"}},
      {{"file", b.string()}, {"shard", "2/2"}, {"utc_time", "2026-12-02T02:00:00Z"}}};
  EXPECT_EQ(merged["plan"]["merged_from"], from);
}

// The merge's writer is the sweep's: a file it reads whole, it writes back byte for byte.
TEST(merge, a_sweep_read_whole_is_written_back_byte_for_byte) {
  const test::temp_dir dir;
  for (const json& doc : {whole(), shard_2()}) {
    const fs::path file = write_doc(dir, "s.json", doc);
    EXPECT_EQ(results::sweep_file_text(results::read_result_set(file, results::reading::whole)),
              read_file(file));
  }
}

// A committed sweep (with --baseline, so its tables carry baseline blocks), cut into three
// shards by its items, merges back into its own bytes (but for plan.merged_from).
TEST(merge, a_committed_sweep_cut_into_shards_merges_back_into_its_bytes) {
  const fs::path file = fs::path(KK3_RESULTS_DIR) / "h200" / "chain-2026-12-01" / "sweep2.json.gz";
  const std::string text = gunzip(file, read_file(file));
  const json doc = json::parse(text);
  const std::vector<std::string> keys = doc["plan"]["items"].get<std::vector<std::string>>();
  ASSERT_GT(keys.size(), 3u);
  auto item_of = [&](const json& e) {  // a record's or table's item
    std::string key = e["family"].get<std::string>() + "/" + e["mode"].get<std::string>();
    for (const auto& [name, value] : e["shape"].items())
      key += "/" + name + "=" + std::to_string(value.get<long long>());
    return static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
  };
  constexpr int k_shards = 3;
  const test::temp_dir dir;
  std::vector<merge::shard_input> inputs;
  std::size_t tables_with_baseline = 0;
  for (int k = 1; k <= k_shards; ++k) {
    json shard = doc;
    json covered = json::array(), records = json::array(), dispatch = json::array();
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (static_cast<int>(i % k_shards) == k - 1) covered.push_back(i);
    auto mine = [&](const json& e) { return static_cast<int>(item_of(e) % k_shards) == k - 1; };
    for (const json& r : doc["records"]) {
      ASSERT_GT(r["tokens"].get<long long>(), 0);  // a timed sweep: no compile-only records
      if (mine(r)) records.push_back(r);
    }
    for (const json& d : doc["dispatch"]) {
      if (mine(d)) dispatch.push_back(d), tables_with_baseline += d.contains("baseline");
    }
    shard["plan"]["shard"] = {{"index", k}, {"count", k_shards}, {"items", covered}};
    if (k > 1) {  // the first shard's context, ceiling and counts are the merged file's
      shard["context"]["utc_time"] = "2026-12-01T18:0" + std::to_string(k) + ":00Z";
      shard["plan"]["compiles"] = 0;
      shard["plan"]["compile_failures"] = 0;
      shard["plan"]["wall_s"] = doc["plan"]["wall_s"].get<double>() / 2;
    }
    shard["records"] = records;
    shard["dispatch"] = dispatch;
    inputs.push_back(merge::read_shard(write_doc(dir, std::to_string(k) + ".json", shard)));
  }
  EXPECT_GT(tables_with_baseline, 0u);
  results::result_set merged = merge::merge_shards(
      std::move(inputs), doc["context"]["argv"].get<std::vector<std::string>>());
  ASSERT_EQ(merged.plan->merged_from.size(), static_cast<std::size_t>(k_shards));
  merged.plan->merged_from.clear();
  EXPECT_EQ(results::sweep_file_text(merged), text);
}

TEST(merge, the_sweep_text_puts_one_record_per_line) {
  const std::string text = results::sweep_text(whole());
  EXPECT_TRUE(contains(text, "\"records\": [\n    {\"family\"")) << text.substr(0, 2000);
  std::size_t lines = 0;
  for (std::size_t at = text.find("\n    {\"family\""); at != std::string::npos;
       at = text.find("\n    {\"family\"", at + 1))
    ++lines;
  EXPECT_EQ(lines, whole()["records"].size());
}

// The sweep writer's layout, byte for byte: the newest committed sweep file (written with
// the current layout) read and written back.
TEST(merge, the_sweep_text_reproduces_a_committed_sweep_file) {
  const fs::path file =
      fs::path(KK3_RESULTS_DIR) / "h200" / "sweep-default-2026-12-01" / "default-cold.json.gz";
  const std::string text = gunzip(file, read_file(file));
  EXPECT_EQ(results::sweep_text(json::parse(text)), text);
}

// One refusal: `edit` spoils shard 2 (or, with `only_first`, merges shard 1 alone).
struct refusal {
  std::string name;
  std::function<void(json&)> edit;
  std::vector<std::string> expected;  ///< parts of the message
};

TEST(merge, conflicts_exit_2_naming_them) {
  const std::vector<refusal> cases = {
      {"digest",
       [](json& d) { d["plan"]["digest"] = "ffffffffffffffffffffffffffffffff"; },
       {"different plans", "/plan/digest", "\"00112233445566778899aabbccddeeff\" vs \"ffff"}},
      {"build",
       [](json& d) { d["context"]["git_revision"] = "fedcba987654"; },
       {"different builds", "/context/git_revision", "\"0123456789ab\" vs \"fedcba987654\""}},
      {"gpu",
       [](json& d) { d["context"]["gpu"]["name"] = "NVIDIA H100"; },
       {"different GPUs", "/context/gpu/name", "\"NVIDIA H200\" vs \"NVIDIA H100\""}},
      {"objective",
       [](json& d) {
         const json isolated = {{"timing", "isolated"}, {"pdl", true}};
         d["plan"]["objective"]["mla_decode_epilogue"] = isolated;
         d["families"]["mla_decode_epilogue"]["objective"] = isolated;
       },
       {"different objectives", "/plan/objective",
        "{\"mla_decode_epilogue\":{\"timing\":\"graph\",\"pdl\":true}} vs "
        "{\"mla_decode_epilogue\":{\"timing\":\"isolated\",\"pdl\":true}}"}},
      {"timed",
       [](json& d) { d["plan"]["timed"] = false; },
       {"one timed, one untimed", "/plan/timed"}},
      {"overlap",
       [](json& d) {
         d["plan"]["shard"]["items"] = {0, 1, 2};
       },
       {"item 0 \"mla_decode_epilogue/bf16/heads=8\" is covered twice", "a.json (shard 1/2)",
        "b.json (shard 2/2)"}},
      {"missing",
       [](json& d) { d["plan"]["shard"]["items"] = {1}; },
       {"1 of 3 items of the plan are covered by no input: \"mla_decode_epilogue/fp8/heads=8\""}},
      {"pre-sharding",
       [](json& d) {
         d["plan"].erase("digest"), d["plan"].erase("items"), d["plan"].erase("shard");
       },
       {"b.json: /plan/digest: missing: the file was written by a kk3tune without shards",
        "re-run the sweep"}},
  };
  for (const refusal& c : cases) {
    const test::temp_dir dir;
    json second = shard_2();
    c.edit(second);
    const fs::path a = write_doc(dir, "a.json", shard_1()), b = write_doc(dir, "b.json", second);
    const fs::path out = dir.path() / "m.json";
    const auto r = merge({a, b}, out);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    for (const std::string& part : c.expected)
      EXPECT_TRUE(contains(r.output, part)) << c.name << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.name;
  }
}

TEST(merge, a_missing_shard_is_named) {
  const test::temp_dir dir;
  const auto r = merge({write_doc(dir, "b.json", shard_2())}, dir.path() / "m.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      contains(r.output, "\"mla_decode_epilogue/bf16/heads=8\" (missing shard 1/2; given: "))
      << r.output;
}

TEST(merge, a_record_outside_its_shard_is_refused) {
  json second = shard_2();
  second["records"].push_back(whole()["records"][1]);  // item 0, shard 1's
  const test::temp_dir dir;
  const fs::path a = write_doc(dir, "a.json", shard_1()), b = write_doc(dir, "b.json", second);
  std::vector<merge::shard_input> inputs = {merge::read_shard(a), merge::read_shard(b)};
  try {
    static_cast<void>(merge::merge_shards(std::move(inputs), {"kk3tune"}));
    ADD_FAILURE() << "merged";
  } catch (const error& e) {
    EXPECT_EQ(exit_code_for(e.kind()), k_exit_usage);
    EXPECT_TRUE(contains(e.what(), "b.json: /records/" +
                                       std::to_string(second["records"].size() - 1) +
                                       ": belongs to an item this file does not cover (2/2)"))
        << e.what();
  }
}

TEST(merge, a_truncated_input_is_named_by_file_and_place) {
  const test::temp_dir dir;
  const std::string text = results::sweep_text(shard_2());
  test::write_text(dir.path() / "b.json", text.substr(0, text.size() / 2));
  const auto r =
      merge({write_doc(dir, "a.json", shard_1()), dir.path() / "b.json"}, dir.path() / "m.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, (dir.path() / "b.json").string() + ": /records/")) << r.output;
  EXPECT_TRUE(contains(r.output, "the file ends early")) << r.output;
}

TEST(merge, out_and_inputs_are_required) {
  EXPECT_EQ(run_kk3tune({"merge", "a.json"}).exit_code, 2);
  EXPECT_EQ(run_kk3tune({"merge", "--out", "m.json"}).exit_code, 2);
  const auto r = run_kk3tune({"merge", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "sharded sweep")) << r.output;
}

}  // namespace
}  // namespace kk3
