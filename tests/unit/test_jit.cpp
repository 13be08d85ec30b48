// NVRTC compiles with no GPU for sm_90a and sm_100a, reports resources, caches, and a broken
// kernel reports its log without stopping the other variants.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/text.hpp"
#include "families/registry.hpp"
#include "jit/cubin_info.hpp"
#include "jit/nvrtc_archs.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"

namespace kk3::jit {
namespace {

std::vector<compile_request> copy_requests(
    const std::vector<std::string>& archs,
    const std::filesystem::path& kernel_dir = KK3_KERNEL_DIR) {
  const auto s = families::load_family_space(families::find_family("copy_example"), KK3_CONFIG_DIR);
  return make_requests(s.config, s.variants, archs, kernel_dir);
}

TEST(jit, compiles_for_sm90a_and_sm100a_without_a_gpu) {
  const auto engine = test::make_engine({});
  for (const std::string arch : {"sm_90a", "sm_100a"}) {
    const auto requests = copy_requests({arch});
    const compile_result r = engine.compile(requests.front());
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(test::cubin_sm(r.cubin), arch_number(arch));
    EXPECT_NE(r.lowered_name.find("copy_kernel"), std::string::npos);
    // From the cubin, whatever the NVRTC log holds.
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_EQ(r.usage.stack_bytes, 0);
    EXPECT_EQ(r.usage.shared_bytes, 0);
    EXPECT_FALSE(r.cache_hit);
    EXPECT_GT(r.compile_s, 0);
  }
}

TEST(jit, second_compile_is_a_cache_hit_with_the_same_image) {
  test::temp_dir cache;
  const auto engine = test::make_engine(cache.path());
  const auto request = copy_requests({"sm_90a"}).front();
  const compile_result cold = engine.compile(request);
  ASSERT_TRUE(cold.ok) << cold.log;
  const compile_result warm = engine.compile(request);
  ASSERT_TRUE(warm.ok);
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(warm.cubin, cold.cubin);
  EXPECT_EQ(warm.lowered_name, cold.lowered_name);
  EXPECT_EQ(warm.usage.registers, cold.usage.registers);
  EXPECT_EQ(warm.label, request.label);
}

TEST(jit, damaged_cache_entry_is_recompiled) {
  test::temp_dir cache;
  const auto engine = test::make_engine(cache.path());
  const auto request = copy_requests({"sm_90a"}).front();
  const compile_result cold = engine.compile(request);
  ASSERT_TRUE(cold.ok);
  const auto cubin = cache.path() / cold.key.substr(0, 2) / (cold.key + ".cubin");
  ASSERT_TRUE(std::filesystem::exists(cubin));
  test::write_text(cubin, "garbage");
  const compile_result again = engine.compile(request);
  ASSERT_TRUE(again.ok);
  EXPECT_FALSE(again.cache_hit);
  EXPECT_EQ(again.cubin, cold.cubin);
  EXPECT_TRUE(engine.compile(request).cache_hit);  // and the entry is mended
}

TEST(jit, broken_variants_report_their_log_and_the_others_compile) {
  const auto engine = test::make_engine({});
  const auto requests =
      copy_requests({"sm_90a"}, std::filesystem::path(KK3_FIXTURE_DIR) / "broken_kernels");
  const auto results = engine.compile_all(requests);
  ASSERT_EQ(results.size(), 27u);
  std::size_t broken = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const bool should_break = requests[i].name_expression.find("<4,") != std::string::npos;
    EXPECT_EQ(results[i].ok, !should_break) << results[i].label << "\n" << results[i].log;
    if (should_break) {
      ++broken;
      EXPECT_NE(results[i].log.find("VEC_BYTES=4 is broken on purpose"), std::string::npos)
          << results[i].log;
      EXPECT_NE(join(results[i].options, " ").find("-arch=sm_90a"), std::string::npos);
      EXPECT_TRUE(results[i].cubin.empty());
    }
  }
  EXPECT_EQ(broken, 9u);
}

TEST(jit, cubin_resources_match_ptxas) {
  // A kernel with static shared memory and a local array: the cubin's figures must agree with
  // what ptxas printed (when the log has them, as on the build machine).
  test::temp_dir dir;
  test::write_text(
      dir.path() / "res.cuh",
      "template <int N> __global__ void res(float* p) {\n"
      "  __shared__ float s[N];\n  float local[512];\n"
      "  for (int i = 0; i < 512; ++i) local[i] = p[i * threadIdx.x];\n"
      "  s[threadIdx.x] = local[p[0] > 0 ? threadIdx.x & 511 : 7];\n  __syncthreads();\n"
      "  p[threadIdx.x] = s[(threadIdx.x + 1) % N];\n}\n");
  const auto engine = test::make_engine({}, dir.path());
  for (const std::string arch : {"sm_90a", "sm_100a", "sm_80"}) {
    compile_request req{"res", dir.path() / "res.cuh", "res<256>", {}, arch};
    const compile_result r = engine.compile(req);
    ASSERT_TRUE(r.ok) << r.log;
    const resource_usage elf = read_cubin_resources(r.cubin, r.lowered_name);
    EXPECT_EQ(elf.shared_bytes, 1024);
    EXPECT_GE(elf.stack_bytes, 2048);
    EXPECT_GT(elf.registers, 0);
    const resource_usage logged = parse_ptxas_log(r.log, r.lowered_name);
    if (logged.registers >= 0) {
      EXPECT_EQ(elf.registers, logged.registers);
      EXPECT_EQ(elf.shared_bytes, logged.shared_bytes);
      EXPECT_EQ(elf.stack_bytes, logged.stack_bytes);
    }
    EXPECT_EQ(read_cubin_resources("not an elf", r.lowered_name).registers, -1);
    EXPECT_EQ(read_cubin_resources(r.cubin, "_Z7missingv").registers, -1);
  }
}

TEST(jit, ptxas_log_parsing) {
  const std::string log =
      "ptxas info    : Compiling entry function '_Z3fooPi' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z3fooPi\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compiling entry function '_Z3barPi' for 'sm_90a'\n"
      "ptxas info    : Used 7 registers\n";
  const resource_usage foo = parse_ptxas_log(log, "_Z3fooPi");
  EXPECT_EQ(foo.registers, 40);
  EXPECT_EQ(foo.stack_bytes, 8);
  EXPECT_EQ(foo.spill_store_bytes, 4);
  EXPECT_EQ(foo.spill_load_bytes, 12);
  EXPECT_EQ(foo.shared_bytes, 1024);
  const resource_usage bar = parse_ptxas_log(log, "_Z3barPi");
  EXPECT_EQ(bar.registers, 7);
  EXPECT_EQ(bar.shared_bytes, 0);
  EXPECT_EQ(parse_ptxas_log(log, "_Z3bazPi").registers, -1);
}

TEST(jit, arch_lists) {
  EXPECT_EQ(parse_arch_list("sm_100a, sm_90a,sm_90a"),
            (std::vector<std::string>{"sm_100a", "sm_90a"}));
  EXPECT_EQ(arch_for_compute_capability(9, 0), "sm_90a");
  EXPECT_EQ(arch_for_compute_capability(10, 0), "sm_100a");
  EXPECT_EQ(arch_for_compute_capability(8, 6), "sm_86");
  EXPECT_THROW(parse_arch_list("sm_42"), error);
  EXPECT_THROW(parse_arch_list("hopper"), error);
  EXPECT_THROW(parse_arch_list(""), error);
}

}  // namespace
}  // namespace kk3::jit
