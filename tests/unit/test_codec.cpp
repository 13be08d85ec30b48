// The result codec (src/results/): every committed result file under results/h200 (schema 1 up
// to today's, .json and .json.gz, both kinds) still reads, and every record of a committed
// sweep round-trips write -> read -> write to the same bytes, at the result file's precision
// and at the journal's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/gzip.hpp"
#include "core/json_parse.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/reader.hpp"
#include "results/schema.hpp"
#include "results/sweep_file.hpp"
#include "select/selection.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using results::json;

const fs::path k_h200 = fs::path(KK3_RESULTS_DIR) / "h200";

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct committed {
  fs::path file;
  json doc;
};

// Every committed result file (kind "time" or "sweep"), parsed, in path order.
std::vector<committed> committed_results() {
  std::vector<committed> out;
  for (const auto& e : fs::recursive_directory_iterator(k_h200)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file()) continue;
    if (!has_suffix(name, ".json") && !has_suffix(name, ".json.gz")) continue;
    json doc = parse_json_text(e.path(), read_file(e.path()));
    if (!doc.is_object() || !doc.contains("kind") || !doc.contains("schema_version")) continue;
    if (doc["kind"] != "time" && doc["kind"] != "sweep") continue;
    out.push_back({e.path(), std::move(doc)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  return out;
}

TEST(codec, every_committed_result_file_reads) {
  const std::vector<committed> files = committed_results();
  ASSERT_GT(files.size(), 10u);
  std::vector<int> versions(results::k_schema_version + 1, 0);
  bool gz = false;
  for (const committed& c : files) {
    SCOPED_TRACE(c.file.string());
    const results::result_set d = results::read_result_set(c.file);
    EXPECT_EQ(d.kind, c.doc["kind"].get<std::string>());
    EXPECT_FALSE(d.records.empty());
    ++versions.at(d.schema_version);
    gz = gz || c.file.extension() == ".gz";
    if (d.kind == "sweep") {
      const results::result_set s = results::read_result_set(c.file, results::reading::tables);
      if (s.not_a_sweep.empty()) EXPECT_EQ(s.dispatch.size(), d.dispatch.size());
    }
  }
  for (int v = results::k_oldest_schema_version; v <= results::k_schema_version; ++v) {
    if (v != 2) EXPECT_GT(versions[v], 0) << "no committed file of schema " << v;
  }
  EXPECT_TRUE(gz) << "no committed .json.gz";
}

// The one writer of a sweep file: each committed sweep of today's schema, read whole and
// written again, has its own bytes (the records, the plan, the families, the tables and their
// baseline blocks).
TEST(codec, committed_sweeps_of_this_schema_read_whole_write_back_their_bytes) {
  std::size_t files = 0;
  for (const committed& c : committed_results()) {
    if (c.doc["kind"] != "sweep" || c.doc["schema_version"] != results::k_schema_version) continue;
    SCOPED_TRACE(c.file.string());
    const std::string text = gunzip(c.file, read_file(c.file));
    EXPECT_EQ(results::sweep_file_text(results::read_result_set(c.file, results::reading::whole)),
              text);
    ++files;
  }
  EXPECT_GE(files, 3u);
}

TEST(codec, committed_sweep_records_round_trip_byte_identically) {
  std::size_t records = 0;
  for (const committed& c : committed_results()) {
    if (c.doc["kind"] != "sweep" || c.doc["schema_version"].get<int>() < 2) continue;
    SCOPED_TRACE(c.file.string());
    for (const json& r : c.doc["records"]) {
      for (const auto p : {results::record_precision::rounded, results::record_precision::full}) {
        const std::string once = results::record_json(results::record_from_json(r), p).dump();
        const std::string twice =
            results::record_json(results::record_from_json(json::parse(once)), p).dump();
        ASSERT_EQ(once, twice);
      }
      ++records;
    }
  }
  EXPECT_GT(records, 100u);
}

}  // namespace
}  // namespace kk3

namespace kk3 {
namespace {

// sweep --baseline: a table's baseline block is summarized from its choices: the counts where
// the baseline had a choice, and the changed ones with their gain; none without a baseline.
TEST(model, a_tables_baseline_block_is_summarized_from_its_choices) {
  results::dispatch_entry d;
  auto choice = [](long long tokens, const std::string& winner, std::optional<std::string> baseline,
                   bool qualified, double gain) {
    select::choice c;
    c.tokens = tokens;
    c.winner = winner;
    c.baseline = std::move(baseline);
    c.baseline_qualified = qualified;
    c.gain = gain;
    c.gain_sigmas = gain * 100;
    return c;
  };
  d.choices = {choice(1, "a", std::nullopt, false, 0), choice(2, "a", "a", true, 0),
               choice(4, "b", "a", true, 0.05), choice(8, "c", "x", false, 0)};
  const std::optional<results::baseline_summary> b = d.summarize_baseline();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->counts, 3);
  ASSERT_EQ(b->changes.size(), 2u);
  EXPECT_EQ(b->changes[0].tokens, 4);
  EXPECT_EQ(b->changes[0].from, "a");
  EXPECT_EQ(b->changes[0].to, "b");
  EXPECT_TRUE(b->changes[0].from_qualified);
  EXPECT_DOUBLE_EQ(b->changes[0].gain, 0.05);
  EXPECT_DOUBLE_EQ(b->changes[0].gain_sigmas, 5);
  EXPECT_EQ(b->changes[1].tokens, 8);
  EXPECT_FALSE(b->changes[1].from_qualified);
  d.choices.resize(1);
  EXPECT_FALSE(d.summarize_baseline());
}

}  // namespace
}  // namespace kk3
