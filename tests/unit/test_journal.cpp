// The sweep journal (src/sweep/journal.hpp): lines written and read back exactly, an unfinished
// last line skipped and cut off, a broken line or another plan refused with the file named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"
#include "results/journal_lines.hpp"
#include "sweep/journal.hpp"

namespace kk3::sweep {
namespace {

namespace fs = std::filesystem;

struct journal_test : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("kk3-journal-" + std::to_string(::getpid()));
  fs::path file = dir / "out.json.journal";
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
};

record sample_record() {
  record r;
  r.family = "mla_decode_epilogue";
  r.mode = "bf16";
  r.variant = "split3-x";
  r.tokens = 64;
  r.shape = {{"heads", 16}};
  r.knobs = {{"SPLIT", 3}, {"UNROLL", 1}};
  r.status = results::status::unverified;
  r.rounds = 2;
  timing::sample_stats st;
  st.samples = 3;
  st.median = 1.0 / 3.0;  // not a short decimal: the journal must keep every bit
  st.rel_stderr_median = 0.00123456789;
  r.stats = st;
  r.samples_us = {0.1 + 0.2, 1.0 / 3.0, 2.5};
  r.bytes_moved = 12345;
  return r;
}

TEST_F(journal_test, lines_come_back_exactly) {
  {
    journal j = journal::create(file, "key1", 77, true);
    j.add_ceiling(4.2);
    journal_count c;
    c.tokens = 64;
    c.records = {sample_record()};
    c.carried = {"a", "b"};
    j.add_count(count_key(shape_key("mla_decode_epilogue", "bf16", {{"heads", 16}}), 64), c);
    verification v;
    v.status = results::status::ok;
    v.seed = 77;
    v.checks = 5;
    v.shapes = {"T1"};
    j.add_verified("mla_decode_epilogue/bf16/heads=16", {{"split3-x", v}});
    j.add_fault(
        {"mla_decode_epilogue/bf16/heads=16", 64, "bad", results::status::timeout, "ran 6 s"});
  }
  const journal j = journal::resume(file, "key1");
  const journal_state& s = j.state();
  EXPECT_EQ(s.seed, 77u);
  EXPECT_TRUE(s.timed);
  ASSERT_TRUE(s.ceiling_tb_s);
  EXPECT_EQ(*s.ceiling_tb_s, 4.2);
  const journal_count& c = s.counts.at("mla_decode_epilogue/bf16/heads=16/T64");
  ASSERT_EQ(c.records.size(), 1u);
  const record& r = c.records[0];
  EXPECT_EQ(r.stats->median, 1.0 / 3.0);
  EXPECT_EQ(r.stats->rel_stderr_median, 0.00123456789);
  EXPECT_EQ(r.samples_us, (std::vector<double>{0.1 + 0.2, 1.0 / 3.0, 2.5}));
  EXPECT_EQ(r.knobs, sample_record().knobs);
  EXPECT_EQ(c.carried, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.verified.at("mla_decode_epilogue/bf16/heads=16").at("split3-x").checks, 5);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].status, results::status::timeout);
}

TEST_F(journal_test, unlaunchable_records_and_verifications_come_back) {
  // A count whose records include a variant the GPU cannot launch there (no statistics, the
  // reason), and a finalist found unlaunchable by verification: --resume must see both as written.
  record unlaunchable = sample_record();
  unlaunchable.variant = "split4-x";
  unlaunchable.status = results::status::unlaunchable;
  unlaunchable.reason =
      "unlaunchable at T64-H16: needs 240 KiB of shared memory per CTA (0 KiB static, 240 KiB "
      "dynamic), "
      "the device allows 227 KiB";
  unlaunchable.rounds = 0;
  unlaunchable.stats.reset();
  unlaunchable.samples_us.clear();
  unlaunchable.bytes_moved = 0;
  verification v;
  v.status = results::status::unlaunchable;
  v.reason =
      "unlaunchable at T65-H16: a cluster of 16 CTAs with 128 threads, 40 registers per thread and "
      "200 KiB of "
      "shared memory each does not fit on the device";
  v.seed = 5;
  v.checks = 3;
  v.shapes = {"T1-H16"};
  const std::string shape = shape_key("mla_decode_epilogue", "bf16", {{"heads", 16}});
  {
    journal j = journal::create(file, "key1", 5, true);
    journal_count c;
    c.tokens = 64;
    c.records = {sample_record(), unlaunchable};
    c.carried = {"split3-x"};
    j.add_count(count_key(shape, 64), c);
    j.add_verified(shape, {{"split3-x", v}});
  }
  const journal j = journal::resume(file, "key1");
  const std::vector<record>& records = j.state().counts.at(count_key(shape, 64)).records;
  ASSERT_EQ(records.size(), 2u);
  const record& r = records[1];
  EXPECT_EQ(r.variant, "split4-x");
  EXPECT_EQ(r.status, results::status::unlaunchable);
  EXPECT_EQ(r.reason, unlaunchable.reason);
  EXPECT_FALSE(r.stats);
  EXPECT_FALSE(r.verified);
  EXPECT_TRUE(r.samples_us.empty());
  EXPECT_EQ(r.knobs, unlaunchable.knobs);
  EXPECT_EQ(records[0].status, results::status::unverified);
  const verification& back = j.state().verified.at(shape).at("split3-x");
  EXPECT_EQ(back.status, results::status::unlaunchable);
  EXPECT_EQ(back.reason, v.reason);
  EXPECT_EQ(back.shapes, v.shapes);
}

TEST_F(journal_test, a_second_start_is_refused_and_another_plan_cannot_resume) {
  { journal j = journal::create(file, "key1", 1, false); }
  try {
    journal::create(file, "key1", 1, false);
    FAIL() << "created over an existing journal";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::io);
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  try {
    journal::resume(file, "key2");
    FAIL() << "resumed another plan's journal";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::usage);
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(journal::resume(dir / "missing.journal", "key1"), error);
}

TEST_F(journal_test, an_unfinished_last_line_is_skipped_and_cut_off) {
  {
    journal j = journal::create(file, "key1", 1, false);
    j.add_unit("attn_res/common_nb1", {sample_record()}, 2, 0);
  }
  {
    std::ofstream out(file, std::ios::app);
    out << R"({"unit":"attn_res/common_nb4","records":[{"fam)";  // killed mid-write
  }
  {
    journal j = journal::resume(file, "key1");
    EXPECT_EQ(j.state().truncated_lines, 1u);
    EXPECT_EQ(j.state().units.size(), 1u);
    j.add_unit("attn_res/common_nb4", {}, 2, 1);
  }
  const journal j = journal::resume(file, "key1");
  EXPECT_EQ(j.state().truncated_lines, 0u);
  EXPECT_EQ(j.state().units.size(), 2u);
  EXPECT_EQ(j.state().unit_compiles.at("attn_res/common_nb4").second, 1u);
}

TEST_F(journal_test, a_broken_line_in_the_middle_names_the_file_and_line) {
  { journal j = journal::create(file, "key1", 1, false); }
  {
    std::ofstream out(file, std::ios::app);
    out << "{\"nonsense\":1}\n{\"ceiling_tb_s\":1}\n";
  }
  try {
    journal::resume(file, "key1");
    FAIL() << "read a broken journal";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::io);
    EXPECT_NE(std::string(e.what()).find(file.string() + ":2:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kk3::sweep
