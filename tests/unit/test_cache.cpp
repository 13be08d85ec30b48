// The compile cache never hands out damaged work: a truncated or swapped image, a garbage,
// empty or foreign meta, and an empty file read as a miss that recompiles and mends the entry;
// two processes storing and compiling one key at once leave a whole entry (issue 25, item 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "core/text.hpp"
#include "families/registry.hpp"
#include "jit/cache.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"

namespace kk3::jit {
namespace {

namespace fs = std::filesystem;

/// copy_example's compile requests for sm_90a.
std::vector<compile_request> copy_requests() {
  const auto s = families::load_family_space(families::find_family("copy_example"), KK3_CONFIG_DIR);
  return make_requests(s.config, s.variants, {"sm_90a"}, KK3_KERNEL_DIR);
}

fs::path entry_file(const fs::path& cache, const std::string& key, const char* extension) {
  return cache / key.substr(0, 2) / (key + extension);
}

/// A cache with one compiled entry, and a way to damage it and check the recompile.
class damaged_cache : public ::testing::Test {
 protected:
  void SetUp() override {
    request = copy_requests().front();
    cold = engine.compile(request);
    ASSERT_TRUE(cold.ok) << cold.log;
    ASSERT_TRUE(engine.compile(request).cache_hit);
  }
  fs::path file(const char* extension) const {
    return entry_file(cache.path(), cold.key, extension);
  }
  /// After damage: a miss that compiles the same image again, and then a hit (the entry mended).
  void expect_recompiled_and_mended(const std::string& what) {
    const compile_result again = engine.compile(request);
    ASSERT_TRUE(again.ok) << what;
    EXPECT_FALSE(again.cache_hit) << what;
    EXPECT_EQ(again.cubin, cold.cubin) << what;
    const compile_result mended = engine.compile(request);
    EXPECT_TRUE(mended.cache_hit) << what;
    EXPECT_EQ(mended.cubin, cold.cubin) << what;
    EXPECT_EQ(mended.log, again.log) << what;  // the log of the compile that mended it
  }

  test::temp_dir cache;
  jit_engine engine = test::make_engine(cache.path());
  compile_request request;
  compile_result cold;
};

TEST_F(damaged_cache, a_truncated_image_is_recompiled) {
  // Truncated past its ELF magic: a check of the magic alone took it for a hit.
  test::write_text(file(".cubin"), cold.cubin.substr(0, 100));
  expect_recompiled_and_mended("cubin truncated to 100 bytes");
  test::write_text(file(".cubin"), cold.cubin.substr(0, cold.cubin.size() - 1));
  expect_recompiled_and_mended("cubin one byte short");
  std::string flipped = cold.cubin;
  flipped[flipped.size() / 2] ^= 0x20;  // same size, one bit changed
  test::write_text(file(".cubin"), flipped);
  expect_recompiled_and_mended("one bit of the cubin flipped");
  test::write_text(file(".log"), cold.log + "x");
  expect_recompiled_and_mended("log one byte longer");
}

TEST_F(damaged_cache, a_swapped_image_is_recompiled) {
  // Another variant's entry, file by file and whole: its cubin under this key, and its meta too.
  const compile_result other = engine.compile(copy_requests().back());
  ASSERT_TRUE(other.ok);
  ASSERT_NE(other.cubin, cold.cubin);
  fs::copy_file(entry_file(cache.path(), other.key, ".cubin"), file(".cubin"),
                fs::copy_options::overwrite_existing);
  expect_recompiled_and_mended("another variant's cubin");
  for (const char* extension : {".cubin", ".log", ".meta"}) {
    fs::copy_file(entry_file(cache.path(), other.key, extension), file(extension),
                  fs::copy_options::overwrite_existing);
  }
  expect_recompiled_and_mended("another variant's whole entry (its meta names its own key)");
}

TEST_F(damaged_cache, a_garbage_or_incomplete_meta_is_a_miss) {
  const std::string meta = read_file(file(".meta"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\x01\xff garbage \n\n==\n", "garbage bytes"},
      {"{\"hello\": 1}\n", "JSON, not name=value lines"},
      {meta.substr(0, meta.find("cubin_xxh3=")), "truncated before the image's digest"},
      {meta.substr(meta.find('\n') + 1), "no key line"},
      {meta + meta, "every field twice"},
      {std::string(meta).replace(meta.find("registers=") + 10, 0, "x"),
       "a field that is not a number"}};
  for (const auto& [text, what] : cases) {
    test::write_text(file(".meta"), text);
    expect_recompiled_and_mended(what);
  }
}

TEST_F(damaged_cache, an_empty_file_is_a_miss) {
  for (const char* extension : {".meta", ".cubin", ".log"}) {
    test::write_text(file(extension), "");
    expect_recompiled_and_mended(std::string("empty ") + extension);
  }
  fs::remove(file(".cubin"));
  expect_recompiled_and_mended("no .cubin");
}

/// A result as writer `w` of the same key would store it: a different image and log each.
compile_result writer_result(const std::string& key, int w) {
  compile_result r;
  r.ok = true;
  r.key = key;
  r.cubin = std::string(
                "\x7f"
                "ELF") +
            std::string(4000 + 977 * w, static_cast<char>('a' + w));
  r.log = "ptxas info: writer " + std::to_string(w) + "\n";
  r.lowered_name = "_Z6kernelv";
  r.usage = {32 + w, 0, 0, 0, 0};
  r.compile_s = 0.25;
  return r;
}

/// Whether a loaded entry is one writer's whole entry (never one's image with the other's meta).
bool is_whole(const compile_result& got, const std::string& key) {
  for (int w = 0; w < 2; ++w) {
    const compile_result want = writer_result(key, w);
    if (got.cubin == want.cubin)
      return got.log == want.log && got.usage.registers == want.usage.registers;
  }
  return false;
}

TEST(cache, two_processes_storing_one_key_at_once_leave_a_whole_entry) {
  test::temp_dir dir;
  const std::string key = "0123456789abcdef0123456789abcdef";
  constexpr int k_rounds = 400;
  std::vector<pid_t> children;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // the child: store its own result and read back whatever is there, many times
      int bad = 0;
      try {
        const kernel_cache cache(dir.path());
        const compile_result mine = writer_result(key, w);
        for (int i = 0; i < k_rounds; ++i) {
          cache.store(mine);
          const auto got = cache.load(key);
          if (got && !is_whole(*got, key)) ++bad;  // a miss is fine while the other writes
        }
      } catch (...) {
        bad = 1;
      }
      ::_exit(bad ? 1 : 0);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer read a mixed entry";
  }
  const auto last = kernel_cache(dir.path()).load(key);
  ASSERT_TRUE(last.has_value()) << "the entry left is damaged";
  EXPECT_TRUE(is_whole(*last, key));
  // No writer's temporary file is left behind.
  for (const auto& f : fs::recursive_directory_iterator(dir.path())) {
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
  }
}

TEST(cache, two_compiles_of_the_same_variants_at_once_both_succeed_and_leave_valid_entries) {
  test::temp_dir dir;
  const std::string cache = (dir.path() / "cache").string();
  const std::string compile =
      test::shell_quote(KK3_BINARY) +
      " compile --family copy_example --arch sm_90a --format json --cache-dir " +
      test::shell_quote(cache) + " --jobs 2";
  const std::string out = test::shell_quote(dir.path().string());
  const auto both = test::run_command("(" + test::k_no_driver + " " + compile + " > " + out +
                                      "/a.json & a=$!; " + test::k_no_driver + " " + compile +
                                      " > " + out + "/b.json & b=$!; wait $a && wait $b)");
  ASSERT_EQ(both.exit_code, 0) << both.output;
  for (const char* name : {"a.json", "b.json"}) {
    const auto j = nlohmann::json::parse(read_file(dir.path() / name));
    EXPECT_EQ(j.at("ok"), 27) << name;
    EXPECT_EQ(j.at("failed"), 0) << name;
  }
  const auto again =
      test::run_command("(" + test::k_no_driver + " " + compile + " > " + out + "/c.json)");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto j = nlohmann::json::parse(read_file(dir.path() / "c.json"));
  EXPECT_EQ(j.at("cache_hits"), 27);  // every entry the two left is whole
}

TEST(cache, a_hit_shows_that_it_was_one_not_the_stored_compile_time) {
  test::temp_dir dir;
  const std::vector<std::string> args = {"compile", "--family",    "empty_example",    "--arch",
                                         "sm_90a",  "--cache-dir", dir.path().string()};
  const auto cold = test::run_kk3tune(args, {test::k_no_driver});
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_FALSE(test::contains(cold.output, "cached")) << cold.output;
  const auto warm = test::run_kk3tune(args, {test::k_no_driver});
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  // Each row's compile_ms reads "cached" beside cache "hit", not the first compile's time.
  for (const std::string& variant :
       {"empty_example/default/threads32", "empty_example/default/threads128"}) {
    const auto row = warm.output.find(variant + " ");
    ASSERT_NE(row, std::string::npos) << warm.output;
    const std::string line = warm.output.substr(row, warm.output.find('\n', row) - row);
    EXPECT_TRUE(test::contains(line, " ok ") && test::contains(line, " cached ") &&
                test::contains(line, " hit "))
        << line;
  }
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const auto j = test::run_kk3tune(json_args, {test::k_no_driver});
  const auto doc = nlohmann::json::parse(j.output.substr(j.output.find('{')));
  for (const auto& r : doc.at("results")) {
    EXPECT_EQ(r.at("cache"), "hit");
    EXPECT_TRUE(r.at("compile_ms").is_null()) << r.dump();
  }
}

}  // namespace
}  // namespace kk3::jit
