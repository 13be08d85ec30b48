// GPU tests of the launchability check (device::launch_problem) and the unlaunchable status:
// copy_example's kernel, compiled with a launch bound of 256, asked for 512 threads per CTA, for
// more dynamic shared memory than a CTA may have, and for clusters of 8, 16 and 32 CTAs with
// large shared memory. launch_problem names each limit; the verifier records those variants as
// unlaunchable and verifies the rest; time, profile and verify from the command line name them
// and exit as documented. They skip cleanly without a GPU (CTest label gpu).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "device/launchability.hpp"
#include "families/copy_example/copy_example.hpp"
#include "families/registry.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"
#include "verify/verifier.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;

const fs::path k_fixtures = fs::path(KK3_FIXTURE_DIR) / "unlaunchable";
const std::string k_reference = "threads256-block256-smem_kib0-cluster1";
const std::string k_too_many_threads = "threads256-block512-smem_kib0-cluster1";
const std::string k_too_much_shared = "threads256-block256-smem_kib240-cluster1";
const std::string k_cluster_32 = "threads256-block256-smem_kib0-cluster32";
const std::string k_cluster_16 = "threads256-block256-smem_kib200-cluster16";
const std::string k_cluster_8 = "threads256-block256-smem_kib120-cluster8";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// copy_example with a launch geometry from the knobs: BLOCK threads per CTA (the kernel is
/// compiled for THREADS), SMEM_KIB of dynamic shared memory, clusters of CLUSTER CTAs (the grid
/// rounded up to whole clusters). Everything else is copy_example's.
class unlaunchable_example final : public families::family {
 public:
  std::string name() const override { return "unlaunchable_example"; }
  bool is_example() const override { return true; }
  device::launch_config geometry(const space::variant& v, const space::mode&,
                                 const families::shape& s) const override {
    const long long cluster = v.value("CLUSTER"), per_cta = v.value("THREADS") * 16;
    const long long ctas = (families::copy_example::copy_bytes(s) + per_cta - 1) / per_cta;
    device::launch_config c;
    c.grid.x = static_cast<unsigned>((ctas + cluster - 1) / cluster * cluster);
    c.block.x = static_cast<unsigned>(v.value("BLOCK"));
    c.shared_bytes = static_cast<unsigned>(v.value("SMEM_KIB") * 1024);
    c.cluster.x = static_cast<unsigned>(cluster);
    return c;
  }
  double bytes_moved(const families::shape& s, const space::mode& m) const override {
    return m_copy.bytes_moved(s, m);
  }
  families::shape model_shape(long long t, const space::mode& m,
                              const families::dims& given) const override {
    return m_copy.model_shape(t, m, given);
  }
  std::vector<families::shape> edge_shapes(const families::shape& s,
                                           const space::mode& m) const override {
    return m_copy.edge_shapes(s, m);
  }
  families::problem make_problem(const families::shape& s, const space::mode& m,
                                 unsigned long long seed) const override {
    return m_copy.make_problem(s, m, seed);
  }
  void reference(const families::shape& s, const space::mode& m,
                 families::problem& p) const override {
    m_copy.reference(s, m, p);
  }
  std::unique_ptr<families::workspace> make_workspace(const families::shape& s,
                                                      const space::mode& m,
                                                      const families::problem& p) const override {
    return m_copy.make_workspace(s, m, p);
  }

 private:
  families::copy_example m_copy;
};

class unlaunchable_gpu : public test::hopper_jit_test {
 protected:
  void SetUp() override {
    hopper_jit_test::SetUp();
    if (IsSkipped()) return;
    fam_space.impl = &fam;
    fam_space.config = space::load_family_config(k_fixtures / "unlaunchable_example.json");
    fam_space.variants = space::enumerate_variants(fam_space.config);
  }

  const space::mode& mode() const { return fam_space.config.modes.front(); }
  const space::variant& variant(const std::string& id) const {
    return space::find_variant(fam_space.variants, fam_space.config, id);
  }

  /// What launch_problem says of a variant at T=64 (compiled and loaded here).
  std::string problem_of(const std::string& id) {
    const space::variant& v = variant(id);
    const jit::compile_result r =
        engine->compile(jit::make_request(fam_space.config, mode(), v, info.arch, KK3_KERNEL_DIR));
    EXPECT_TRUE(r.ok) << r.log;
    modules.push_back(std::make_unique<device::module>(r.cubin, r.label));
    const CUfunction fn = modules.back()->function(r.lowered_name);
    return device::launch_problem(fn, fam.geometry(v, mode(), fam.model_shape(64, mode(), {})),
                                  info);
  }

  unlaunchable_example fam;
  families::family_space fam_space;
  std::vector<std::unique_ptr<device::module>> modules;
};

TEST_F(unlaunchable_gpu, launch_problem_names_each_limit) {
  ASSERT_EQ(fam_space.variants.size(), 6u);
  EXPECT_EQ(problem_of(k_reference), "");

  const std::string threads = problem_of(k_too_many_threads);
  EXPECT_TRUE(
      contains(threads, "512 threads per CTA, but the kernel can have at most 256 (it needs "))
      << threads;
  EXPECT_TRUE(contains(threads, " registers per thread)")) << threads;

  ASSERT_GT(info.shared_per_block_optin_bytes, 48 * 1024);
  const std::string shared = problem_of(k_too_much_shared);
  if (240 * 1024 > info.shared_per_block_optin_bytes) {
    EXPECT_EQ(shared,
              "needs 240 KiB of shared memory per CTA (0 KiB static, 240 KiB dynamic), the device "
              "allows " +
                  device::kib_text(info.shared_per_block_optin_bytes));
  } else {
    std::cout << info.name << " allows " << device::kib_text(info.shared_per_block_optin_bytes)
              << " per CTA\n";
  }

  EXPECT_EQ(problem_of(k_cluster_32), "a cluster of 32 CTAs, the device allows at most 16");

  // Whether 16 (or 8) CTAs of 200 (120) KiB fit at once depends on the GPU's GPCs: only the
  // wording is checked here; the verifier test below launches them when they are said to fit.
  for (const auto& [id, ctas] : {std::pair{k_cluster_16, 16}, std::pair{k_cluster_8, 8}}) {
    const std::string why = problem_of(id);
    std::cout << info.name << ": " << id << ": " << (why.empty() ? "launchable" : why) << "\n";
    if (why.empty()) continue;
    EXPECT_TRUE(contains(why, "a cluster of " + std::to_string(ctas) + " CTAs with 256 threads"))
        << why;
    EXPECT_TRUE(contains(why, "does not fit on the device") ||
                contains(why, "occupancy calculator refuses"))
        << why;
  }
}

TEST_F(unlaunchable_gpu, verify_records_unlaunchable_variants_and_verifies_the_rest) {
  const verify::verifier check(info, *engine, KK3_KERNEL_DIR, *helpers);
  verify::verify_options o;
  o.seed = 20261130;
  o.tokens = {64};
  const std::vector<verify::verify_record> records =
      check.verify_mode(fam_space, mode(), fam_space.variants, o);
  ASSERT_EQ(records.size(), 6u);
  for (const verify::verify_record& r : records) {
    const std::string said = problem_of(r.variant);  // at T=64, which is launchable iff T=1 is
    if (r.variant == k_too_many_threads || r.variant == k_too_much_shared ||
        r.variant == k_cluster_32 || !said.empty()) {
      EXPECT_EQ(r.outcome, results::status::unlaunchable) << r.variant << ": " << r.reason;
      EXPECT_EQ(r.reason, "unlaunchable at T1: " + said)
          << r.variant << ": the first shape, before any launch";
      EXPECT_EQ(r.checks, 0) << r.variant;
      EXPECT_TRUE(r.shapes.empty()) << r.variant;
    } else {
      // Launchable, so it ran: a cluster that launch_problem lets through must really launch.
      EXPECT_EQ(r.outcome, results::status::ok) << r.variant << ": " << r.reason;
      EXPECT_EQ(r.shapes.size(), 3u) << r.variant << ": T1, T3 and T64";
    }
  }
}

TEST_F(unlaunchable_gpu, an_unlaunchable_reference_is_a_verify_error) {
  std::vector<space::variant> variants = fam_space.variants;
  for (space::variant& v : variants) v.is_reference = v.id == k_too_many_threads;
  const verify::verifier check(info, *engine, KK3_KERNEL_DIR, *helpers);
  try {
    static_cast<void>(check.verify_mode(fam_space, mode(), variants, {}));
    FAIL() << "verified without a launchable reference";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::verify);
    EXPECT_TRUE(contains(e.what(), "unlaunchable_example/default: the reference variant " +
                                       k_too_many_threads +
                                       " is unlaunchable at T1: 512 threads per CTA"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "nothing can be verified")) << e.what();
  }
}

// The command line, on configs/copy_example.json's kernel compiled for 256 threads per CTA and
// launched with THREADS (tests/fixtures/unlaunchable/configs): the threads512 variants cannot run.
test::command_result kk3tune_with_fixture_config(std::vector<std::string> args) {
  args.insert(args.begin(), {"--config-dir", (k_fixtures / "configs").string()});
  args.insert(args.end(), {"--family", "copy_example", "--no-cache"});
  return test::run_kk3tune(args);
}

TEST_F(unlaunchable_gpu, time_and_profile_name_an_unlaunchable_variant_and_exit_2) {
  for (const char* command : {"time", "profile"}) {
    const auto r = kk3tune_with_fixture_config(
        {command, "--variant", "vec_bytes16-unroll2-threads512", "--tokens", "64"});
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(
        contains(r.output,
                 "kk3tune: usage error: copy_example/default/vec_bytes16-unroll2-threads512 is "
                 "unlaunchable at T64: 512 threads per CTA, but the kernel can have at most 256"))
        << command << "\n"
        << r.output;
    EXPECT_FALSE(contains(r.output, "cuLaunchKernelEx")) << r.output;
  }
}

TEST_F(unlaunchable_gpu, time_all_skips_the_unlaunchable_variants_and_times_the_rest) {
  const auto r = kk3tune_with_fixture_config(
      {"time", "--variant", "all", "--tokens", "64", "--max-time", "0.05"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* id : {"vec_bytes16-unroll1-threads512", "vec_bytes16-unroll2-threads512"}) {
    EXPECT_TRUE(contains(r.output, std::string("kk3tune: skipping copy_example/default/") + id +
                                       ": unlaunchable at T64: "))
        << r.output;
  }
  EXPECT_TRUE(contains(r.output, "vec_bytes16-unroll1-threads256 (reference)")) << r.output;
  EXPECT_TRUE(contains(r.output, "vec_bytes16-unroll2-threads256")) << r.output;
}

TEST_F(unlaunchable_gpu, verify_lists_unlaunchable_variants_and_exits_0) {
  const auto r = kk3tune_with_fixture_config({"verify", "--tokens", "64", "--seed", "7"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "2 variant-modes ok, 0 failed, 2 unlaunchable on this GPU"))
      << r.output;
  EXPECT_TRUE(contains(
      r.output, "unlaunchable at T1: 512 threads per CTA, but the kernel can have at most 256"))
      << r.output;
}

}  // namespace
}  // namespace kk3
