// Reading result files (src/results/reader.hpp): the committed H200 results of both kinds
// and both layouts, an untimed sweep, and every way a file can be unusable (each error names the
// file and the JSON pointer).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"
#include "results/reader.hpp"
#include "results/schema.hpp"
#include "results/sweep_file.hpp"
#include "support/test_support.hpp"
#include "sweep/sweep.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using results::read_result_set;
using results::result_set;

const fs::path k_h200 = fs::path(KK3_RESULTS_DIR) / "h200";
const fs::path k_sweeps = k_h200 / "sweep-families-2026-11-29";
const fs::path k_default_sweep = k_h200 / "sweep-default-2026-12-01";
const fs::path k_chain = k_h200 / "mla-bench-2026-11-29" / "bf16" / "chain-bf16-H8-T64.json";

// The message of the error(input) reading `file` throws ("" and a failure if none is thrown).
std::string input_error(const fs::path& file) {
  try {
    (void)read_result_set(file);
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::input) << e.what();
    return e.what();
  }
  ADD_FAILURE() << file << " was read without an error";
  return {};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(result_reader, reads_a_time_result) {
  const result_set d = read_result_set(k_chain);
  EXPECT_EQ(d.kind, "time");
  EXPECT_EQ(d.schema_version, 1);
  EXPECT_TRUE(d.timed());
  EXPECT_EQ(d.context.gpu.name, "NVIDIA H200");
  EXPECT_EQ(d.context.gpu.arch, "sm_90a");
  EXPECT_EQ(d.context.gpu.cc_major, 9);
  EXPECT_EQ(d.context.gpu.cc_minor, 0);
  EXPECT_EQ(d.context.gpu.sm_count, 132);
  EXPECT_EQ(d.context.gpu.l2_bytes, 62914560);
  ASSERT_TRUE(d.context.gpu.clocks);
  EXPECT_EQ(d.context.gpu.clocks->sm_mhz, 1980);
  EXPECT_EQ(d.context.git_revision, "84fa5b85b325");
  EXPECT_EQ(d.context.utc_time, "2026-11-29T08:40:00Z");
  ASSERT_FALSE(d.context.argv.empty());
  EXPECT_EQ(d.context.argv[1], "time");
  EXPECT_TRUE(d.dispatch.empty());

  ASSERT_EQ(d.records.size(), 5u);
  const results::record& r = d.records[0];
  EXPECT_EQ(r.at, "/results/0");
  EXPECT_EQ(r.key(),
            "mla_decode_epilogue/bf16/T64-H8/"
            "split1-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0");
  EXPECT_EQ(r.status, results::status::ok);
  EXPECT_EQ(r.timing_mode, "chain");
  EXPECT_FALSE(r.reference);  // this early file has no "reference" member
  EXPECT_FALSE(r.verified);
  ASSERT_TRUE(r.stats);
  EXPECT_EQ(r.stats->samples, 49);
  EXPECT_DOUBLE_EQ(r.stats->median, 1.7184004187583923);
  EXPECT_DOUBLE_EQ(r.stats->rel_stderr_median, 0.003460148822557755);
  EXPECT_EQ(r.samples_us.size(), 49u);
  EXPECT_DOUBLE_EQ(r.samples_us[0], 1.5776000916957855);
  EXPECT_DOUBLE_EQ(r.bytes_moved, 1327616.0);
}

TEST(result_reader, reads_the_first_time_layout) {
  // Before `time` measured several variants, the one measurement sat at the top level and the
  // variant in the subject.
  const result_set d = read_result_set(k_h200 / "measure-engine-2026-11-29" / "repeat1-T8.json");
  EXPECT_EQ(d.kind, "time");
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.records[0].key(), "copy_example/default/T8/vec_bytes16-unroll1-threads256");
  EXPECT_EQ(d.records[0].at, "");
  EXPECT_EQ(d.records[0].timing_mode, "graph");
  ASSERT_TRUE(d.records[0].stats);
  EXPECT_EQ(d.records[0].stats->samples, 129);
  EXPECT_EQ(d.records[0].samples_us.size(), 129u);
}

TEST(result_reader, reads_a_gzipped_time_result_as_it_is) {
  test::temp_dir dir;
  const fs::path gz = k_h200 / "mla-bench-2026-11-29" / "bf16" / "graph-bf16-H16-T64.json.gz";
  const fs::path json = dir.path() / "graph-bf16-H16-T64.json";
  const auto r = test::run_command("gzip -dc " + test::shell_quote(gz.string()) + " > " +
                                   test::shell_quote(json.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const result_set d = read_result_set(gz);
  const result_set plain = read_result_set(json);
  ASSERT_EQ(plain.records.size(), d.records.size());
  EXPECT_EQ(plain.records.back().samples_us, d.records.back().samples_us);
  ASSERT_EQ(d.records.size(), 96u);
  for (const auto& rec : d.records) {
    EXPECT_EQ(rec.family, "mla_decode_epilogue");
    EXPECT_EQ(rec.tokens, 64);
    EXPECT_EQ(rec.shape, (families::dims{{"heads", 16}}));
    ASSERT_TRUE(rec.stats) << rec.key();
    EXPECT_EQ(static_cast<std::size_t>(rec.stats->samples), rec.samples_us.size()) << rec.key();
  }
  EXPECT_DOUBLE_EQ(d.records[0].stats->median, 1.989454623650421);
}

TEST(result_reader, a_truncated_or_corrupt_gzip_result_is_an_input_error_naming_the_file) {
  test::temp_dir dir;
  const std::string bytes =
      read_file(k_h200 / "mla-bench-2026-11-29" / "bf16" / "graph-bf16-H16-T64.json.gz");
  const fs::path cut = dir.path() / "cut.json.gz";
  write_file_atomic(cut, bytes.substr(0, bytes.size() / 2));
  std::string what = input_error(cut);
  EXPECT_NE(what.find(cut.string() + ": ends early (truncated?) (gzip data)"), std::string::npos)
      << what;

  std::string bad = bytes;
  for (std::size_t i = 20; i < 200; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  const fs::path corrupt = dir.path() / "corrupt.json.gz";
  write_file_atomic(corrupt, bad);
  what = input_error(corrupt);
  EXPECT_NE(what.find(corrupt.string() + ": corrupt: "), std::string::npos) << what;
}

TEST(result_reader, reads_a_sweep_written_with_pretty_printed_records) {
  const result_set d = read_result_set(k_sweeps / "small.json");
  EXPECT_EQ(d.kind, "sweep");
  EXPECT_TRUE(d.timed());
  EXPECT_EQ(d.context.gpu.name, "NVIDIA H200");
  ASSERT_EQ(d.records.size(), 32u);
  const results::record& r = d.records[5];
  EXPECT_EQ(r.at, "/records/5");
  EXPECT_EQ(r.key(),
            "mla_decode_epilogue/bf16/T64-H16/"
            "split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128");
  EXPECT_EQ(r.status, results::status::ok);
  ASSERT_TRUE(r.verified);
  EXPECT_EQ(r.verified->status, results::status::ok);
  ASSERT_EQ(r.knobs.size(), 7u);
  EXPECT_EQ(r.knobs[0], (std::pair<std::string, long long>("SPLIT", 3)));
  ASSERT_TRUE(r.stats);
  EXPECT_EQ(r.stats->samples, 70);
  EXPECT_DOUBLE_EQ(r.stats->median, 2.3108000867068768);
  EXPECT_EQ(r.samples_us.size(), 70u);
  EXPECT_DOUBLE_EQ(r.fraction_of_ceiling, 0.25966821087935427);

  ASSERT_EQ(d.dispatch.size(), 3u);
  const results::dispatch_entry& t = d.dispatch[2];
  EXPECT_EQ(t.at, "/dispatch/2");
  EXPECT_EQ(t.family, "attn_res");
  EXPECT_EQ(t.shape,
            (families::dims{{"blocks", 1}}));  // schema 1: "blocks" of a family keyed on it
  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.ranges[0].min_tokens, 1);
  EXPECT_EQ(t.ranges[0].max_tokens, 65);
  EXPECT_EQ(t.ranges[1].winner,
            "b1-threads512-early_blocks0-keep0-stage0-occ1-tpc1-cvt1-nc3-spread0-red0");
  EXPECT_EQ(t.ranges[1].runner_up.value_or(""),
            "b1-threads1024-early_blocks0-keep0-stage0-occ0-tpc1-cvt0-nc3-spread0-red0");
  EXPECT_DOUBLE_EQ(t.ranges[1].margin, 0.28123882499860864);
}

TEST(result_reader, reads_the_large_committed_sweep) {
  // The full default sweep on the H200 from a cold cache (results/h200/sweep-default-2026-12-01):
  // 25 attn_res modes and 4 mla modes, 19 token counts each.
  const result_set sweep = read_result_set(k_default_sweep / "default-cold.json.gz");
  ASSERT_EQ(sweep.records.size(), 27153u);
  std::size_t dropped = 0, unlaunchable = 0;
  for (const auto& r : sweep.records) {
    if (r.status == results::status::unlaunchable) {
      ++unlaunchable;
      EXPECT_FALSE(r.stats);
      EXPECT_NE(r.reason.find("shared memory"), std::string::npos) << r.reason;
    }
    if (r.status != results::status::dropped) continue;
    ++dropped;
    EXPECT_EQ(r.samples_us.size(), 2u);
    EXPECT_FALSE(r.verified);
    EXPECT_TRUE(r.stats);
  }
  EXPECT_EQ(dropped, 23961u);
  EXPECT_EQ(unlaunchable,
            209u);  // b1-gpw2-stage1-tpc8-stages2 from NB = 5 on: two tokens do not fit
  EXPECT_EQ(sweep.dispatch.size(), 29u);
}

TEST(result_reader, reads_an_untimed_sweep) {
  // As `kk3tune sweep` writes it without a GPU (only the fields the reader needs, one record).
  test::temp_dir dir;
  const fs::path file = dir.path() / "untimed.json";
  test::write_text(file, R"({"schema_version": 1, "kind": "sweep",
  "context": {"gpu": null, "tool_version": "0.1.0", "git_revision": "abc", "argv": ["kk3tune", "sweep"],
              "utc_time": "2026-11-29T13:15:58Z"},
  "plan": {"config": "p.json", "tokens": [1, 64], "archs": ["sm_100a", "sm_90a"], "timed": false},
  "families": {},
  "records": [
    {"family":"attn_res","mode":"common_nb1","tokens":0,"heads":0,"blocks":1,"variant":"b1-gpw4","knobs":{"B":1,"GPW":4},"reference":true,"status":"unverified","reason":"","rounds":0,"verification":null,"statistics":null,"samples_us":[],"bytes_moved":0.0,"achieved_tb_s":0.0,"fraction_of_ceiling":0.0}
  ],
  "dispatch": []
})");
  const result_set d = read_result_set(file);
  EXPECT_FALSE(d.timed());
  EXPECT_EQ(d.context.gpu.name, "");
  EXPECT_EQ(d.context.nvrtc_version, "");
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.records[0].status, results::status::unverified);
  EXPECT_FALSE(d.records[0].stats);
  EXPECT_TRUE(d.records[0].samples_us.empty());
  EXPECT_EQ(d.records[0].key(), "attn_res/common_nb1/T0-NB1/b1-gpw4");
  EXPECT_TRUE(d.dispatch.empty());
}

TEST(result_reader, reads_unlaunchable_records_as_the_sweep_writes_them) {
  // One variant the GPU cannot launch at T64 (no statistics), one finalist whose verification
  // found it unlaunchable at a verification shape (timed, then not qualified).
  result_set r;
  r.kind = "sweep";
  r.schema_version = results::k_schema_version;
  r.plan.emplace().config = "plan.json";
  sweep::record never;
  never.family = "attn_res";
  never.mode = "post_nb8";
  never.tokens = 64;
  never.shape = {{"blocks", 8}};
  never.variant = "b14-gpw1";
  never.status = results::status::unlaunchable;
  never.reason =
      "unlaunchable at T64-NB8: a cluster of 14 CTAs with 64 threads, 40 registers per thread and "
      "200 KiB of shared memory each does not fit on the device";
  sweep::record finalist = never;
  finalist.variant = "b7-gpw1";
  finalist.reason =
      "unlaunchable at T65-NB8: needs 240 KiB of shared memory per CTA (0 KiB static, 240 KiB "
      "dynamic), the device allows 227 KiB";
  finalist.samples_us = {2.0, 2.1, 2.2};
  finalist.stats = timing::summarize(finalist.samples_us);
  finalist.verified =
      sweep::verification{results::status::unlaunchable, finalist.reason, 7, 4, {"T1-NB8"}, ""};
  r.records = {never, finalist};
  test::temp_dir dir;
  const fs::path file = dir.path() / "sweep.json";
  test::write_text(file, results::sweep_file_text(r));

  const result_set d = read_result_set(file);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].status, results::status::unlaunchable);
  EXPECT_EQ(d.records[0].reason, never.reason);
  EXPECT_FALSE(d.records[0].stats);
  EXPECT_FALSE(d.records[0].verified);
  EXPECT_TRUE(d.records[0].samples_us.empty());
  EXPECT_EQ(d.records[1].status, results::status::unlaunchable);
  ASSERT_TRUE(d.records[1].verified);
  EXPECT_EQ(d.records[1].verified->status, results::status::unlaunchable);
  ASSERT_TRUE(d.records[1].stats);
  EXPECT_EQ(d.records[1].samples_us.size(), 3u);
}

TEST(result_reader, a_count_with_a_fraction_is_still_readable) {
  // A script that scaled every number under "samples" leaves a count of 61.25.
  test::temp_dir dir;
  const fs::path file = dir.path() / "scaled.json";
  std::string text = replaced(read_file(k_chain), "\"samples\": 49,", "\"samples\": 61.25,");
  text = replaced(text, "\"tokens\": 64,", "\"tokens\": 64.0,");
  test::write_text(file, text);
  const result_set d = read_result_set(file);
  // The count is the model's (results::sample_stats): read like every integer field, rounded.
  EXPECT_EQ(d.records[0].stats->samples, 61u);
  EXPECT_EQ(d.records[0].tokens, 64);
}

class result_reader_errors : public ::testing::Test {
 protected:
  test::temp_dir dir;
  // The chain result with `from` replaced by `to`, written to dir/name.
  fs::path edited(const std::string& name, const std::string& from, const std::string& to) {
    const fs::path file = dir.path() / name;
    test::write_text(file, replaced(read_file(k_chain), from, to));
    return file;
  }
  fs::path written(const std::string& name, const std::string& text) {
    const fs::path file = dir.path() / name;
    test::write_text(file, text);
    return file;
  }
};

TEST_F(result_reader_errors, an_unreadable_file_is_an_io_error) {
  try {
    (void)read_result_set(dir.path() / "missing.json");
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::io);
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
}

TEST_F(result_reader_errors, a_truncated_file_names_where_it_ends) {
  const std::string text = read_file(k_chain);
  const fs::path file = written("t.json", text.substr(0, text.find("1.7343997955322266")));
  const std::string what = input_error(file);
  EXPECT_NE(what.find("t.json: /results/0/samples_us/"), std::string::npos) << what;
  EXPECT_NE(what.find("truncated"), std::string::npos) << what;
  EXPECT_NE(input_error(written("empty.json", "")).find("empty"), std::string::npos);
}

TEST_F(result_reader_errors, a_syntax_error_names_the_pointer_and_byte) {
  const std::string what =
      input_error(edited("s.json", "\"median_us\": 1.7184004187583923,", "\"median_us\": NaN,"));
  EXPECT_NE(what.find("s.json: /results/0/statistics/median_us: not valid JSON at byte "),
            std::string::npos)
      << what;
}

TEST_F(result_reader_errors, another_schema_version_is_named) {
  const std::string what =
      input_error(edited("v4.json", "\"schema_version\": 1", "\"schema_version\": 4"));
  EXPECT_NE(what.find("v4.json: /schema_version: schema_version 4 is not supported"),
            std::string::npos)
      << what;
}

TEST_F(result_reader_errors, an_unknown_kind_is_named) {
  const std::string what =
      input_error(edited("k.json", "\"kind\": \"time\"", "\"kind\": \"bench\""));
  EXPECT_NE(what.find("k.json: /kind: unknown kind \"bench\""), std::string::npos) << what;
}

TEST_F(result_reader_errors, missing_and_mistyped_fields_are_named) {
  EXPECT_NE(input_error(edited("m.json", "\"median_us\": 1.7184004187583923,", ""))
                .find("m.json: /results/0/statistics/median_us: missing"),
            std::string::npos);
  EXPECT_NE(input_error(edited("n.json", "\"variant\": \"split2-unroll1",
                               "\"variant\": 7, \"x\": \"split2-unroll1"))
                .find("n.json: /results/1/variant: expected a string"),
            std::string::npos);
  EXPECT_NE(input_error(edited("o.json", "1.5776000916957855,\n        1.6575999557971954",
                               "1.5776000916957855,\n        \"1.6575999557971954\""))
                .find("o.json: /results/0/samples_us/1: expected a number"),
            std::string::npos);
  EXPECT_NE(input_error(edited("p.json", "\"subject\": {", "\"subjects\": {"))
                .find("p.json: /subject: missing"),
            std::string::npos);
  EXPECT_NE(input_error(written("q.json", R"({"kind": "time"})"))
                .find("q.json: /schema_version: missing"),
            std::string::npos);
  EXPECT_NE(input_error(written("r.json", "[1, 2]")).find("r.json: /: expected a JSON object"),
            std::string::npos);
  EXPECT_NE(
      input_error(
          written(
              "s.json",
              R"({"schema_version": 1, "kind": "sweep", "context": {}, "records": [{"family": "f"}]})"))
          .find("s.json: /records/0/mode: missing"),
      std::string::npos);
}

}  // namespace
}  // namespace kk3
