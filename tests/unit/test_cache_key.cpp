// The compile cache key changes with the source, an included header, an option, the arch and
// the NVRTC version, and with nothing else.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "jit/cache_key.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/toolkit.hpp"
#include "support/test_support.hpp"

namespace kk3::jit {
namespace {

class cache_key_test : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_text(dir.path() / "k" / "main.cuh",
                     "#include \"sub/inc.cuh\"\n__global__ void k(int* p) { p[0] = V; }\n");
    test::write_text(dir.path() / "k" / "sub" / "inc.cuh", "#define V 1\n");
    test::write_text(dir.path() / "k" / "unrelated.cuh", "#define W 2\n");
    request.label = "test";
    request.source = dir.path() / "k" / "main.cuh";
    request.name_expression = "k";
    request.options = {"-DX=1"};
    request.arch = "sm_90a";
  }

  std::string key(const std::string& version = "13.0",
                  const std::filesystem::path& kernel_dir = {}) const {
    const nvrtc_compiler c(kernel_dir.empty() ? dir.path() / "k" : kernel_dir,
                           require_cuda_include_dir().dir);
    return cache_key(request, c.full_options(request), c.sources(request), version);
  }

  test::temp_dir dir;
  compile_request request;
};

TEST_F(cache_key_test, stable_when_nothing_changes) {
  const std::string k = key();
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(key(), k);
  test::write_text(dir.path() / "k" / "unrelated.cuh", "#define W 3\n");  // not included
  EXPECT_EQ(key(), k);
  request.label = "another label";  // labels are for messages only
  EXPECT_EQ(key(), k);
}

TEST_F(cache_key_test, survives_a_copy_of_the_tree_to_another_folder) {
  const std::string k = key();
  std::filesystem::copy(dir.path() / "k", dir.path() / "copy",
                        std::filesystem::copy_options::recursive);
  request.source = dir.path() / "copy" / "main.cuh";
  EXPECT_EQ(key("13.0", dir.path() / "copy"), k);
}

TEST_F(cache_key_test, changes_with_the_source) {
  const std::string k = key();
  test::write_text(request.source,
                   "#include \"sub/inc.cuh\"\n__global__ void k(int* p) { p[0] = V + 1; }\n");
  EXPECT_NE(key(), k);
}

TEST_F(cache_key_test, changes_with_an_included_header) {
  const std::string k = key();
  test::write_text(dir.path() / "k" / "sub" / "inc.cuh", "#define V 2\n");
  EXPECT_NE(key(), k);
}

TEST_F(cache_key_test, changes_with_an_option) {
  const std::string k = key();
  request.options = {"-DX=2"};
  EXPECT_NE(key(), k);
  request.options = {"-DX=1", "-lineinfo"};
  EXPECT_NE(key(), k);
}

TEST_F(cache_key_test, changes_with_the_arch_and_the_kernel) {
  const std::string k = key();
  request.arch = "sm_100a";
  EXPECT_NE(key(), k);
  request.arch = "sm_90a";
  request.name_expression = "k2";
  EXPECT_NE(key(), k);
}

TEST_F(cache_key_test, changes_with_the_nvrtc_version) {
  EXPECT_NE(key("13.0"), key("13.1"));
}

TEST(include_scan, follows_nested_and_toolkit_includes) {
  const auto files = scan_includes(std::filesystem::path(KK3_KERNEL_DIR) / "copy_example.cuh",
                                   {KK3_KERNEL_DIR, require_cuda_include_dir().dir});
  ASSERT_GE(files.size(), 2u);
  EXPECT_EQ(files[0].name, "copy_example.cuh");
  EXPECT_EQ(files[1].name, "common/pdl.cuh");
  EXPECT_NE(files[1].contents.find("griddepcontrol.wait"), std::string::npos);
}

}  // namespace
}  // namespace kk3::jit

namespace kk3::jit {
namespace {

TEST(toolkit, include_folder_search_order_and_message) {
  test::temp_dir a, b;
  test::write_text(b.path() / "cuda_fp16.h", "// stand-in\n");
  const auto found = first_cuda_include_dir({{a.path(), "first"}, {b.path(), "second"}});
  EXPECT_EQ(found.dir, b.path());
  EXPECT_EQ(found.how, "second");
  try {
    first_cuda_include_dir({{a.path(), "first"}, {"/nonexistent/include", "from $CUDA_HOME"}});
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::compile);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/include (from $CUDA_HOME)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(require_cuda_include_dir().dir.empty());  // this machine has a toolkit
}

}  // namespace
}  // namespace kk3::jit
