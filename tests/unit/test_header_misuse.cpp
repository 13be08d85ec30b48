// Headers a downstream build cannot misuse (issue 25, item 3), tried as a downstream build would
// with the host compiler: a kernel source without its mode's macros does not compile (#error
// naming the macro), no bare H or NB is left defined, with_mode_variant<M>() refuses the macros
// of another mode, and select() asserts in a debug build on a shape without a table.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::shell_quote;

const fs::path k_kernels = KK3_KERNEL_DIR;
const fs::path k_fixture = fs::path(KK3_FIXTURE_DIR) / "sweep" / "mini-h200.json";

using macros = std::vector<std::pair<std::string, std::string>>;

const macros k_common_nb8 = {{"KK3_ATTN_RES_H", "7168"},
                             {"KK3_ATTN_RES_NB", "8"},
                             {"KK3_ATTN_RES_HAS_DELTA", "1"},
                             {"KK3_ATTN_RES_HAS_OUT_NORM", "1"},
                             {"KK3_ATTN_RES_BLOCK_WRITE", "0"}};
const macros k_fp8_rope = {{"KK3_MLA_DECODE_EPILOGUE_MODE_FP8", "1"},
                           {"KK3_MLA_DECODE_EPILOGUE_MODE_ROPE", "1"}};

std::string defines_of(const macros& m, const std::string& except = "") {
  std::string out;
  for (const auto& [name, value] : m) {
    if (name != except) out += " -D" + name + "=" + value;
  }
  return out;
}

// The kernel source through the host compiler's preprocessor: what #error and #define see.
test::command_result preprocess(const std::string& source, const std::string& defines) {
  return test::run_command(std::string(KK3_CXX_COMPILER) + " -E -dM -x c++ -std=c++17" + defines +
                           " -I" + shell_quote(k_kernels.string()) + " " +
                           shell_quote((k_kernels / source).string()));
}

TEST(header_misuse, a_kernel_without_one_of_its_mode_macros_fails_naming_it) {
  struct family_case {
    std::string source;
    macros mode;
  };
  for (const family_case& f : {family_case{"attn_res.cuh", k_common_nb8},
                               family_case{"mla_decode_epilogue.cuh", k_fp8_rope}}) {
    const auto all = preprocess(f.source, defines_of(f.mode));
    EXPECT_EQ(all.exit_code, 0) << f.source << "\n" << all.output;
    for (const auto& [name, value] : f.mode) {
      const auto r = preprocess(f.source, defines_of(f.mode, name));
      EXPECT_NE(r.exit_code, 0) << f.source << " without " << name;
      EXPECT_TRUE(contains(r.output, "#error \"" + f.source + ": " + name + " is not defined"))
          << r.output;
    }
    const auto none = preprocess(f.source, "");
    EXPECT_NE(none.exit_code, 0) << f.source;
    EXPECT_TRUE(contains(none.output, "is not defined")) << none.output;
  }
}

// After the kernel sources (with their mode's macros), the translation unit has no macro of a
// mode's short name and no macro without kk3tune's prefixes beside the ones it defined itself.
TEST(header_misuse, the_kernels_leave_no_bare_macro_in_the_translation_unit) {
  for (const auto& [source, mode] :
       {std::pair<std::string, macros>{"attn_res.cuh", k_common_nb8},
        std::pair<std::string, macros>{"mla_decode_epilogue.cuh", k_fp8_rope}}) {
    const auto r = preprocess(source, defines_of(mode));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* bare : {"H", "NB", "HAS_DELTA", "HAS_OUT_NORM", "BLOCK_WRITE", "MODE_FP8",
                             "MODE_ROPE", "READ_PREFIX_EARLY", "READ_Q_EARLY"}) {
      EXPECT_FALSE(contains(r.output, "#define " + std::string(bare) + " "))
          << source << " defines " << bare;
    }
  }
}

// Emits the fixture's headers, then compiles `program` against them with the host compiler
// (`flags` added), and runs it when it compiled.
test::command_result compile_and_run(const test::temp_dir& dir, const std::string& program,
                                     const std::string& flags) {
  const auto e =
      test::run_kk3tune({"emit", k_fixture.string(), "--out", (dir.path() / "include").string()});
  EXPECT_EQ(e.exit_code, 0) << e.output;
  const fs::path source = dir.path() / "use.cpp", exe = dir.path() / "use";
  test::write_text(source, program);
  // In a subshell: run_command() adds 2>&1 at the end, and the compiler's messages count.
  return test::run_command(
      "(" + std::string(KK3_CXX_COMPILER) + " -std=c++17 -Wall -Wextra -Werror " + flags + " -I" +
      shell_quote((dir.path() / "include").string()) + " -I" + shell_quote(KK3_BUILD_INCLUDE_DIR) +
      " " + shell_quote(source.string()) + " -o " + shell_quote(exe.string()) + " && " +
      shell_quote(exe.string()) + ")");
}

std::string with_mode_variant_program(const std::string& mode) {
  return R"(#include <kk3tune/dispatch/attn_res.h>
namespace d = kk3tune::dispatch::attn_res;
int main() {
  int calls = 0;
  d::with_mode_variant<d::mode::)" +
         mode + R"(>(d::reference_knobs, [&](auto) { ++calls; });
  return calls == 1 ? 0 : 1;
}
)";
}

TEST(header_misuse, with_mode_variant_refuses_the_macros_of_another_mode) {
  test::temp_dir dir;
  // common_nb8's macros, defined before the header: with_mode_variant<common_nb8> compiles.
  const auto same =
      compile_and_run(dir, with_mode_variant_program("common_nb8"), defines_of(k_common_nb8));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  // ... with_mode_variant<common_nb4> does not, naming the macro and the mode.
  const auto other =
      compile_and_run(dir, with_mode_variant_program("common_nb4"), defines_of(k_common_nb8));
  EXPECT_NE(other.exit_code, 0) << other.output;
  EXPECT_TRUE(contains(other.output,
                       "with_mode_variant<mode::common_nb4>: KK3_ATTN_RES_NB is not 4, the value "
                       "of mode common_nb4"))
      << other.output;
  EXPECT_FALSE(contains(other.output, "KK3_ATTN_RES_H is not")) << "H is 7168 in both modes\n"
                                                                << other.output;
  // final_nb8 differs from common_nb8 in HAS_OUT_NORM only.
  const auto norm =
      compile_and_run(dir, with_mode_variant_program("final_nb8"), defines_of(k_common_nb8));
  EXPECT_NE(norm.exit_code, 0) << norm.output;
  EXPECT_TRUE(contains(norm.output,
                       "with_mode_variant<mode::final_nb8>: KK3_ATTN_RES_HAS_OUT_NORM is not 0"))
      << norm.output;
  EXPECT_FALSE(contains(norm.output, "KK3_ATTN_RES_NB is not")) << norm.output;
  // Without the macros (a host-only unit) there is nothing to check.
  const auto host = compile_and_run(dir, with_mode_variant_program("common_nb4"), "");
  EXPECT_EQ(host.exit_code, 0) << host.output;
}

TEST(header_misuse, select_asserts_in_a_debug_build_on_a_shape_without_a_table) {
  // The fixture's attn_res table is common_nb4 at blocks 4: blocks 8 does not go with that mode.
  const std::string program = R"(#include <kk3tune/dispatch/attn_res.h>
#include <cstdio>
namespace d = kk3tune::dispatch::attn_res;
int main(int argc, char**) {
  const int blocks = argc > 5 ? 4 : 8;  // not a constant: the assert runs, not the compiler
  const d::selection s = d::select_with_status(d::mode::common_nb4, blocks, 1);
  std::printf("status %s\n", d::status_name(s.status));
  const d::knobs k = d::select(d::mode::common_nb4, blocks, 1);
  std::printf("select gave the reference: %d\n", k == d::reference_knobs ? 1 : 0);
  return 0;
}
)";
  test::temp_dir dir;
  const auto debug = compile_and_run(dir, program, "");
  EXPECT_NE(debug.exit_code, 0) << debug.output;
  EXPECT_TRUE(contains(debug.output, "status reference_no_table")) << debug.output;
  EXPECT_TRUE(contains(debug.output, "no table for this mode and shape")) << debug.output;
  EXPECT_FALSE(contains(debug.output, "select gave")) << debug.output;
  const auto release = compile_and_run(dir, program, "-DNDEBUG");
  EXPECT_EQ(release.exit_code, 0) << release.output;
  EXPECT_TRUE(contains(release.output, "status reference_no_table\nselect gave the reference: 1"))
      << release.output;
}

}  // namespace
}  // namespace kk3
