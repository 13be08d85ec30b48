// A header changes only where a table changes (issue 25, item 4): the generated header names the
// runs its tables came from in one provenance block, and nothing else in it depends on a run's
// figures (timings, runner-up margins, whether the incumbent was kept), so re-emitting a sweep
// whose tables equal its baseline's changes that block at most.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/dispatch_header.hpp"
#include "core/gzip.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using test::contains;

const fs::path k_sweep_dir = fs::path(KK3_FIXTURE_DIR) / "sweep";
const std::vector<std::string> k_headers = {"mla_decode_epilogue.h", "attn_res.h"};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// A header cut around its provenance block: the lines before it, the block (its two marker
/// lines included), the lines after it. `blocks` counts the begin markers (one expected).
struct header_parts {
  std::vector<std::string> before, block, after;
  int blocks = 0;
};

header_parts parts_of(const std::string& text) {
  header_parts p;
  int state = 0;  // 0 before, 1 inside, 2 after
  for (const std::string& line : lines_of(text)) {
    if (line == codegen::k_provenance_begin) {
      ++p.blocks;
      state = 1;
    }
    (state == 0 ? p.before : state == 1 ? p.block : p.after).push_back(line);
    if (state == 1 && line == codegen::k_provenance_end) state = 2;
  }
  return p;
}

/// The lines of `b` that differ from `a` outside the provenance block ("" when none): the two
/// headers must be equal before the block and after it.
std::string outside_differences(const std::string& a, const std::string& b) {
  const header_parts pa = parts_of(a), pb = parts_of(b);
  std::string out;
  auto compare = [&](const std::vector<std::string>& x, const std::vector<std::string>& y,
                     const char* where) {
    for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
      const std::string l = i < x.size() ? x[i] : "(none)", r = i < y.size() ? y[i] : "(none)";
      if (l != r)
        out += std::string(where) + " line " + std::to_string(i + 1) + ":\n  - " + l + "\n  + " +
               r + "\n";
    }
  };
  compare(pa.before, pb.before, "before the provenance,");
  compare(pa.after, pb.after, "after the provenance,");
  return out;
}

std::string write_json(const test::temp_dir& dir, const std::string& name, const json& doc) {
  const fs::path file = dir.path() / name;
  test::write_text(file, doc.dump(1));
  return file.string();
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

json read_json(const fs::path& file) {
  return json::parse(maybe_gunzip(file, read_file(file)));
}

/// The two headers `kk3tune emit` writes from `input`.
std::vector<std::string> emitted(const std::string& input) {
  test::temp_dir out;
  const auto r = test::run_kk3tune({"emit", input, "--out", out.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> texts;
  for (const std::string& name : k_headers)
    texts.push_back(r.exit_code == 0 ? read_file(out.path() / "kk3tune" / "dispatch" / name) : "");
  return texts;
}

/// Calls f on every number under `j` whose key `key_matches` (arrays inherit their key).
void each_number(json& j, const std::function<bool(const std::string&)>& key_matches,
                 const std::function<void(json&)>& f, const std::string& key = "") {
  if (j.is_number() && key_matches(key)) {
    f(j);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      each_number(it.value(), key_matches, f, it.key());
  } else if (j.is_array()) {
    for (json& e : j) each_number(e, key_matches, f, key);
  }
}

/// The fixture as a second run of the same build would give it with the same winners: every
/// timing 0.2% slower (inside the tie band: the plan's noise floor is 1.5%, its minimum gain 2%),
/// the margins and runner-ups of a second run, every incumbent kept (the baseline's winner is
/// the incumbent), another time and git revision (so another file digest).
json resweep_of(json doc) {
  for (json& r : doc["records"]) {
    each_number(
        r, [](const std::string& k) { return ends_with(k, "_us"); },
        [](json& v) { v = v.get<double>() * 1.002; });
    each_number(
        r, [](const std::string& k) { return k == "achieved_tb_s" || k == "fraction_of_ceiling"; },
        [](json& v) { v = v.get<double>() / 1.002; });
  }
  for (json& d : doc["dispatch"]) {
    for (json& range : d["ranges"]) {
      range["margin"] = range["margin"].get<double>() / 2 - 0.003;
      range["incumbent_kept"] = true;
      if (range["runner_up"].is_string()) range["runner_up"] = range["variant"];
    }
  }
  doc["context"]["utc_time"] = "2026-12-03T12:00:00Z";
  doc["context"]["git_revision"] = "0123456789ab-dirty";
  return doc;
}

TEST(emit_provenance, the_header_has_one_provenance_block_and_no_per_run_figure) {
  const std::string fixture = (k_sweep_dir / "mini-h200.json").string();
  for (const std::string& text : emitted(fixture)) {
    const header_parts p = parts_of(text);
    EXPECT_EQ(p.blocks, 1) << text;
    ASSERT_GE(p.block.size(), 3u) << text;
    EXPECT_EQ(p.block.back(), codegen::k_provenance_end) << text;
    EXPECT_TRUE(contains(join(p.block, "\n"), "swept by kk3tune 0.1.0 (git f1x7u4e00000)")) << text;
    EXPECT_TRUE(contains(join(p.block, "\n"), "at 2026-11-30T00:00:00Z; sweep result digest "))
        << text;
    // A run's figures are in the result JSON, not here.
    for (const char* figure :
         {"runner-up", "runner_up", "slower by", "faster by", "incumbent", "margin", "median"}) {
      EXPECT_FALSE(contains(text, figure)) << figure << " in\n" << text;
    }
    // The run is named once: nothing outside the block names its time, revision or digest.
    const std::string outside = join(p.before, "\n") + join(p.after, "\n");
    EXPECT_FALSE(contains(outside, "2026-11-30")) << text;
    EXPECT_FALSE(contains(outside, "f1x7u4e00000")) << text;
    EXPECT_FALSE(contains(outside, "digest")) << text;
  }
}

TEST(emit_provenance, timings_perturbed_inside_the_tie_band_change_only_the_provenance) {
  test::temp_dir in;
  const json base = read_json(k_sweep_dir / "mini-h200.json");
  const json again = resweep_of(base);
  ASSERT_NE(again["records"], base["records"]);
  const std::vector<std::string> a = emitted(write_json(in, "base.json", base));
  const std::vector<std::string> b = emitted(write_json(in, "again.json", again));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(outside_differences(a[i], b[i]), "") << k_headers[i];
    EXPECT_NE(parts_of(a[i]).block, parts_of(b[i]).block)
        << k_headers[i] << ": the provenance names the new run";
    EXPECT_TRUE(contains(join(parts_of(b[i]).block, "\n"), "git 0123456789ab-dirty")) << b[i];
  }
}

// The control: a table whose winner changed changes the header outside the block, and the
// check above sees it.
TEST(emit_provenance, a_changed_winner_changes_lines_outside_the_provenance) {
  test::temp_dir in;
  const json base = read_json(k_sweep_dir / "mini-h200.json");
  json changed = resweep_of(base);
  // mla bf16 heads 16, T 65..512: the T <= 64 range's winner instead.
  json& ranges = changed["dispatch"][0]["ranges"];
  ASSERT_EQ(ranges[1]["min_tokens"], 65);
  ranges[1]["variant"] = ranges[0]["variant"];
  ranges[1]["knobs"] = ranges[0]["knobs"];
  const std::string diff = outside_differences(emitted(write_json(in, "base.json", base))[0],
                                               emitted(write_json(in, "changed.json", changed))[0]);
  EXPECT_TRUE(contains(diff, "// T 65..512: split3-unroll1-early_reads1-cache_wait0")) << diff;
  EXPECT_TRUE(contains(diff, "{512, {3, 1, 1, 0, 1, 0, 128}},")) << diff;
}

// Two default sweeps of one build on the H200 (2026-12-01, the second with --baseline the first:
// 0 of 551 counts changed, 187 of their ranges with other margins, runner-ups or incumbent flags),
// kept as their dispatch sections (tests/fixtures/sweep/resweep). Their attn_res tables are of
// knobs the config no longer has, so the test keeps the mla ones.
TEST(emit_provenance, a_re_sweep_of_one_build_changes_only_the_provenance) {
  test::temp_dir in;
  auto mla_only = [&](const std::string& name) {
    json doc = read_json(k_sweep_dir / "resweep" / (name + ".json.gz"));
    doc["families"].erase("attn_res");
    json kept = json::array();
    for (const json& d : doc["dispatch"]) {
      if (d["family"] == "mla_decode_epilogue") kept.push_back(d);
    }
    doc["dispatch"] = kept;
    return write_json(in, name + ".json", doc);
  };
  const std::vector<std::string> a = emitted(mla_only("sweep2-dispatch-only"));
  const std::vector<std::string> b = emitted(mla_only("resweep-dispatch-only"));
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(outside_differences(a[0], b[0]), "");
  EXPECT_TRUE(contains(a[0], "inline constexpr range sm_90_bf16_heads16[]")) << a[0];
  // Inside the block: the revision line and the time-and-digest line; and the first sweep's build
  // (git 782edd7bfffd-dirty) had uncommitted changes, which its block says in one line more.
  header_parts pa = parts_of(a[0]);
  const header_parts pb = parts_of(b[0]);
  const std::string note =
      "(a build of a tree with uncommitted changes: this table traces to no commit)";
  const auto noted = std::find_if(pa.block.begin(), pa.block.end(),
                                  [&](const std::string& l) { return contains(l, note); });
  ASSERT_NE(noted, pa.block.end()) << join(pa.block, "\n");
  pa.block.erase(noted);
  EXPECT_FALSE(contains(join(pb.block, "\n"), note)) << "a clean revision has no such line";
  ASSERT_EQ(pa.block.size(), pb.block.size());
  std::size_t changed = 0;
  for (std::size_t i = 0; i < pa.block.size(); ++i) changed += pa.block[i] != pb.block[i];
  EXPECT_EQ(changed, 2u) << join(pa.block, "\n") << "\n" << join(pb.block, "\n");
  EXPECT_EQ(a[1], b[1]) << "attn_res: no table in either, the same all-fallback header";
}

}  // namespace
}  // namespace kk3
