// kk3::nvtx::scoped_range seen from a tool's side: the emitter runs with the recorder injection
// library attached (NVTX_INJECTION64_PATH), and the recorder's log is read back and checked.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace kk3 {
namespace {

using run_result = test::command_result;

/// Runs the emitter with `env` settings; any injection inherited from the test's own
/// environment (say, ctest under nsys) is removed first, so only `env` decides.
run_result run_emitter(const std::vector<std::string>& env) {
  std::string cmd = "env -u NVTX_INJECTION64_PATH -u NVTX_INJECTION32_PATH";
  for (const auto& e : env) cmd += " " + test::shell_quote(e);
  return test::run_command(cmd + " " + test::shell_quote(KK3_NVTX_EMITTER));
}

/// One line of the recorder's log (format in tests/nvtx/recorder.cpp).
struct event {
  std::string kind;  // domain, string, push, pop
  long tid = 0;
  std::string domain;
  std::string message_type;  // push only
  std::string text;          // domain: its name; string: its text; push: the message
  std::string payload;       // push only
};

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string join(const std::vector<std::string>& words, std::size_t first, std::size_t last) {
  std::string out;
  for (std::size_t i = first; i < last; ++i) out += (i > first ? " " : "") + words[i];
  return out;
}

std::vector<event> read_log(const std::filesystem::path& file) {
  std::vector<event> events;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto w = split(line);
    event e;
    if (w.size() >= 3) {
      e.kind = w[0];
      e.tid = std::stol(w[1]);
    }
    if (e.kind == "domain") {
      e.text = join(w, 2, w.size());
    } else if (e.kind == "string" && w.size() >= 4) {
      e.domain = w[2];
      e.text = join(w, 3, w.size());
    } else if (e.kind == "push" && w.size() >= 6) {
      e.domain = w[2];
      e.message_type = w[3];
      e.text = join(w, 4, w.size() - 1);
      e.payload = w.back();
    } else if (e.kind == "pop" && w.size() == 3) {
      e.domain = w[2];
    } else {
      ADD_FAILURE() << "unreadable log line: '" << line << "'";
      continue;
    }
    events.push_back(e);
  }
  return events;
}

/// A range as replayed from the log: where it sat in its thread's stack.
struct range_record {
  long tid = 0;
  std::size_t depth = 0;
  std::string domain;
  std::string message_type;
  std::string name;
  std::string payload;
};

/// Replays pushes and pops thread by thread. Each problem (a pop with nothing open, a pop in
/// another domain than its push, a range left open) goes to `problems`.
std::vector<range_record> replay(const std::vector<event>& events,
                                 std::vector<std::string>& problems) {
  std::vector<range_record> ranges;
  std::map<long, std::vector<std::size_t>> open;  // tid -> indices into `ranges`
  for (const auto& e : events) {
    if (e.kind == "push") {
      auto& stack = open[e.tid];
      ranges.push_back({e.tid, stack.size(), e.domain, e.message_type, e.text, e.payload});
      stack.push_back(ranges.size() - 1);
    } else if (e.kind == "pop") {
      auto& stack = open[e.tid];
      if (stack.empty()) {
        problems.push_back("pop with no open range on thread " + std::to_string(e.tid));
        continue;
      }
      const auto& top = ranges[stack.back()];
      if (top.domain != e.domain)
        problems.push_back("pop in domain " + e.domain + " closes '" + top.name + "' of domain " +
                           top.domain);
      stack.pop_back();
    }
  }
  for (const auto& [tid, stack] : open)
    for (auto i : stack)
      problems.push_back("'" + ranges[i].name + "' never popped on thread " + std::to_string(tid));
  return ranges;
}

/// The emitter's log, from a fresh run with the recorder attached.
std::vector<event> record_emitter(const test::temp_dir& dir) {
  const auto log = dir.path() / "nvtx.log";
  const auto r = run_emitter(
      {"NVTX_INJECTION64_PATH=" + std::string(KK3_NVTX_RECORDER), "KK3_NVTX_LOG=" + log.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(log)) << "the recorder was not loaded: " << r.output;
  return read_log(log);
}

TEST(nvtx, every_push_pops_on_its_own_thread) {
  test::temp_dir dir;
  const auto events = record_emitter(dir);
  std::vector<std::string> problems;
  const auto ranges = replay(events, problems);
  EXPECT_EQ(ranges.size(), 7u);
  for (const auto& p : problems) ADD_FAILURE() << p;
  std::size_t pushes = 0, pops = 0;
  for (const auto& e : events) {
    pushes += e.kind == "push";
    pops += e.kind == "pop";
  }
  EXPECT_EQ(pushes, pops);
}

TEST(nvtx, ranges_nest_sweep_family_shape_variant_in_the_kk3tune_domain) {
  test::temp_dir dir;
  const auto events = record_emitter(dir);
  std::vector<std::string> problems;
  const auto ranges = replay(events, problems);
  ASSERT_FALSE(ranges.empty());
  const long main_tid = ranges.front().tid;

  struct expected_range {
    std::size_t depth;
    std::string name;
    std::string payload;
  };
  // clang-format off
  const std::vector<expected_range> expected = {
      {0, "sweep", "none"},
      {1, "copy_example", "none"},
      {2, "T64", "64"},
      {3, "vec_bytes16-unroll1-threads256", "64"},
      {4, "measure", "64"},
      {4, "verify", "none"},
  };
  // clang-format on
  std::vector<range_record> on_main, on_others;
  for (const auto& r : ranges) (r.tid == main_tid ? on_main : on_others).push_back(r);
  ASSERT_EQ(on_main.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("range " + std::to_string(i) + " on the main thread");
    EXPECT_EQ(on_main[i].name, expected[i].name);
    EXPECT_EQ(on_main[i].depth, expected[i].depth);
    EXPECT_EQ(on_main[i].payload, expected[i].payload);
    EXPECT_EQ(on_main[i].domain, "kk3tune");
    EXPECT_EQ(on_main[i].message_type, "registered");
  }

  // The worker's range is its own thread's outermost one, whatever the main thread had open.
  ASSERT_EQ(on_others.size(), 1u);
  EXPECT_NE(on_others[0].tid, main_tid);
  EXPECT_EQ(on_others[0].depth, 0u);
  EXPECT_EQ(on_others[0].name, "measure");
  EXPECT_EQ(on_others[0].payload, "64");
  EXPECT_EQ(on_others[0].domain, "kk3tune");
  EXPECT_EQ(on_others[0].message_type, "registered");
}

TEST(nvtx, each_name_is_registered_once_in_the_kk3tune_domain) {
  test::temp_dir dir;
  const auto events = record_emitter(dir);
  std::size_t domains = 0;
  std::map<std::string, int> registrations;
  std::set<std::string> pushed;
  for (const auto& e : events) {
    if (e.kind == "domain") {
      EXPECT_EQ(e.text, "kk3tune");
      ++domains;
    } else if (e.kind == "string") {
      EXPECT_EQ(e.domain, "kk3tune") << e.text;
      ++registrations[e.text];
    } else if (e.kind == "push") {
      pushed.insert(e.text);
    }
  }
  EXPECT_EQ(domains, 1u);
  // "measure" is pushed on two threads; the second push must reuse the first registration.
  for (const auto& [text, count] : registrations) EXPECT_EQ(count, 1) << text;
  std::set<std::string> registered;
  for (const auto& [text, count] : registrations) registered.insert(text);
  const std::set<std::string> names = {
      "sweep", "copy_example", "T64", "vec_bytes16-unroll1-threads256", "measure", "verify"};
  EXPECT_EQ(registered, names);
  EXPECT_EQ(pushed, names);
}

TEST(nvtx, without_an_injection_library_ranges_are_no_ops) {
  test::temp_dir dir;
  const auto log = dir.path() / "nvtx.log";
  const auto r = run_emitter({"KK3_NVTX_LOG=" + log.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(r.output.empty()) << r.output;
  EXPECT_FALSE(std::filesystem::exists(log));
}

}  // namespace
}  // namespace kk3

namespace kk3 {
namespace {

// The tool itself, not only the emitter: every variant compile is a "compile" range in the
// kk3tune domain, pushed and popped on its worker thread.
TEST(nvtx, kk3tune_compile_emits_one_compile_range_per_variant) {
  test::temp_dir dir;
  const auto log = dir.path() / "nvtx.log";
  const auto r = test::run_kk3tune(
      {"compile", "--arch", "sm_90a", "--family", "copy_example", "--no-cache"},
      {std::string("NVTX_INJECTION64_PATH=") + KK3_NVTX_RECORDER, "KK3_NVTX_LOG=" + log.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(log);
  std::string line;
  std::map<std::string, int> depth;  // per thread
  int compile_ranges = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, tid, domain, type, message;
    words >> kind >> tid >> domain >> type >> message;
    if (kind == "push") {
      ++depth[tid];
      if (domain == "kk3tune" && message == "compile") ++compile_ranges;
    } else if (kind == "pop") {
      EXPECT_GT(depth[tid]--, 0) << "pop without push on thread " << tid;
    }
  }
  EXPECT_EQ(compile_ranges, 27);
  for (const auto& [tid, d] : depth) EXPECT_EQ(d, 0) << "thread " << tid << " left ranges open";
}

}  // namespace
}  // namespace kk3
