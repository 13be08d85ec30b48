// GPU verification of mla_decode_epilogue: every variant in every mode bitwise equal to the CPU
// reference and the reference variant at the edge shapes, no shipped variant flagged by the
// PDL hazard check, the test-only early reader flagged every time, NaN handled as documented.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <optional>

#include "device/launch.hpp"
#include "families/mla_decode_epilogue/mla_decode_epilogue.hpp"
#include "families/numerics.hpp"
#include "families/registry.hpp"
#include "families/tensor_workspace.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"
#include "verify/verifier.hpp"

namespace kk3::verify {
namespace {

class mla_gpu : public test::hopper_jit_test {
 protected:
  void SetUp() override {
    hopper_jit_test::SetUp();
    if (IsSkipped()) return;
    check.emplace(info, *engine, KK3_KERNEL_DIR, *helpers);
    space = families::load_family_space(families::find_family("mla_decode_epilogue"),
                                        KK3_CONFIG_DIR, true);
  }

  std::vector<space::variant> shipped() const {
    std::vector<space::variant> out;
    for (const auto& v : space.variants) {
      if (!v.test_only) out.push_back(v);
    }
    return out;
  }

  std::optional<verifier> check;
  families::family_space space;
};

TEST_F(mla_gpu, every_variant_in_every_mode_is_bitwise_exact_and_hazard_free) {
  verify_options o;
  o.seed = 20261129;
  o.tokens = {256};
  for (const auto& m : space.config.modes) {
    const auto records = check->verify_mode(space, m, shipped(), o);
    ASSERT_EQ(records.size(), 288u);
    for (const auto& r : records) {
      EXPECT_EQ(r.outcome, results::status::ok) << m.name << " " << r.variant << ": " << r.reason;
      EXPECT_EQ(r.shapes.size(), 8u);  // 7 edge shapes and T=256
    }
  }
}

TEST_F(mla_gpu, reading_q_before_the_wait_is_caught_in_every_one_of_20_runs) {
  std::vector<space::variant> pair;
  for (const auto& v : space.variants) {
    if (v.is_reference || v.test_only) pair.push_back(v);
  }
  ASSERT_EQ(pair.size(), 2u);
  int caught = 0;
  for (unsigned run = 0; run < 20; ++run) {
    verify_options o;
    o.seed = 1000 + run;
    o.edge_shapes = false;
    o.tokens = {64};
    const auto records = check->verify_mode(space, space.config.modes[run % 4], pair, o);
    for (const auto& r : records) {
      if (r.test_only) {
        caught += r.outcome == results::status::pdl_hazard;
        EXPECT_EQ(r.outcome, results::status::pdl_hazard) << "run " << run << ": " << r.reason;
      } else {
        EXPECT_EQ(r.outcome, results::status::ok) << r.reason;
      }
    }
  }
  EXPECT_EQ(caught, 20);
}

TEST_F(mla_gpu, nan_and_saturation_match_the_documented_cpu_conversions) {
  const families::mla_decode_epilogue mla;
  for (const char* mode_name : {"fp8", "fp8_rope", "bf16_rope"}) {
    const space::mode* m = &space::find_mode(space.config, mode_name);
    const families::shape s = mla.model_shape(2, *m, {{"heads", 3}});
    families::problem p = mla.make_problem(s, *m, 99);
    auto* ql = reinterpret_cast<std::uint16_t*>(p.at("ql_nope").bytes.data());
    auto* qpe = reinterpret_cast<std::uint16_t*>(p.at("q_pe").bytes.data());
    const std::uint16_t specials[] = {0x7fc1, 0xffc1, 0x7f80, 0xff80, 0x8000,
                                      0x0001, 0x4780, 0xc780};  // NaNs, infs, -0, tiny, +-65536
    for (int i = 0; i < 8; ++i) {
      ql[i] = specials[i];
      qpe[i] = specials[i];
    }
    families::problem expected = p;
    mla.reference(s, *m, expected);
    const space::variant& v = space::find_variant(space.variants, space.config, "reference");
    const auto r =
        engine->compile(jit::make_request(space.config, *m, v, info.arch, KK3_KERNEL_DIR));
    ASSERT_TRUE(r.ok) << r.log;
    const device::module mod(r.cubin, r.label);
    auto ws = mla.make_workspace(s, *m, p);
    const device::stream st;
    device::launch(mod.function(r.lowered_name), st.get(), mla.geometry(v, *m, s), ws->args());
    st.synchronize();
    families::problem got = p;
    dynamic_cast<families::tensor_workspace&>(*ws).download(got);
    EXPECT_EQ(got.at("mqa_q").bytes, expected.at("mqa_q").bytes) << mode_name;
    EXPECT_EQ(got.at("kv_cache").bytes, expected.at("kv_cache").bytes) << mode_name;
  }
}

TEST_F(mla_gpu, verify_command_passes_and_writes_npy_for_a_flagged_variant) {
  test::temp_dir dir;
  const auto r = test::run_kk3tune(
      {"verify", "--family", "mla_decode_epilogue", "--mode", "fp8_rope", "--tokens", "65",
       "--seed", "5", "--include-test-knobs", "--save-workspace", dir.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("288 variant-modes ok, 0 failed, 1 test-only variant-modes flagged"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("pdl_hazard"), std::string::npos) << r.output;
  bool saved = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    saved |= e.path().filename() == "got_mqa_q.npy";
  }
  EXPECT_TRUE(saved);
}

TEST_F(mla_gpu, verify_command_writes_json_with_format_json) {
  // Issue 17: list, compile and verify take --format json.
  const auto r = test::run_kk3tune(
      {"verify", "--family", "mla_decode_epilogue", "--mode", "bf16", "--variant",
       "split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early1-threads128", "--seed",
       "7", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto at = r.output.find("{\n");
  ASSERT_NE(at, std::string::npos) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(at));
  EXPECT_EQ(j.at("kind"), "verify");
  EXPECT_EQ(j.at("seed"), 7);
  EXPECT_EQ(j.at("failed"), 0);
  ASSERT_EQ(j.at("records").size(), 2u);  // the reference and the variant named
  for (const auto& rec : j.at("records")) {
    EXPECT_EQ(rec.at("status"), "ok") << rec.dump();
    EXPECT_GT(rec.at("checks").get<long long>(), 0) << rec.dump();
  }
}

}  // namespace
}  // namespace kk3::verify
