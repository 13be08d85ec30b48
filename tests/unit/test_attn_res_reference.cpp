// The attn_res float64 CPU reference and the double-to-bf16 rounding it ends with.
#include <gtest/gtest.h>

#include <cmath>

#include "families/attn_res/attn_res.hpp"
#include "families/numerics.hpp"
#include "families/registry.hpp"

namespace kk3::families {
namespace {

TEST(numerics, f64_to_bf16_rounds_once) {
  EXPECT_EQ(f64_to_bf16_rn(1.0), 0x3f80);
  EXPECT_EQ(f64_to_bf16_rn(1.0 + std::ldexp(1.0, -8)), 0x3f80);                        // tie: even
  EXPECT_EQ(f64_to_bf16_rn(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81);  // just above: up
  // Rounding to float first would land on the tie and then go to even (0x3f80): a double rounding.
  EXPECT_EQ(f64_to_bf16_rn(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3f81);
  EXPECT_EQ(f64_to_bf16_rn(-1.0 - 3 * std::ldexp(1.0, -8)), 0xbf82);  // tie: even
  EXPECT_EQ(f64_to_bf16_rn(0.0), 0x0000);
}

class attn_res_reference : public ::testing::Test {
 protected:
  void SetUp() override { space = load_family_space(find_family("attn_res"), KK3_CONFIG_DIR); }
  const space::mode& mode(const std::string& name) { return space::find_mode(space.config, name); }
  family_space space;
  attn_res ar;
};

TEST_F(attn_res_reference, one_source_is_the_rms_normed_prefix_update) {
  const shape s = ar.model_shape(2, 0, 0);
  problem p = ar.make_problem(s, mode("nb0"), 11);
  const problem before = p;
  ar.reference(s, mode("nb0"), p);
  const long long H = 7168;
  const auto* pre0 = reinterpret_cast<const std::uint16_t*>(before.at("prefix").bytes.data());
  const auto* delta = reinterpret_cast<const std::uint16_t*>(before.at("delta").bytes.data());
  const auto* pre = reinterpret_cast<const std::uint16_t*>(p.at("prefix").bytes.data());
  const auto* ow = reinterpret_cast<const std::uint16_t*>(p.at("out_w").bytes.data());
  const auto* out = reinterpret_cast<const std::uint16_t*>(p.at("out").bytes.data());
  for (long long t = 0; t < 2; ++t) {
    double ss = 0;
    for (long long i = 0; i < H; ++i) {
      // The prefix update is the fp32 sum rounded to bf16.
      ASSERT_EQ(pre[t * H + i], f32_to_bf16_rn(bf16_to_f32(pre0[t * H + i]) + bf16_to_f32(delta[t * H + i])));
      ss += std::pow(bf16_to_f32(pre[t * H + i]), 2);
    }
    // One source: weight 1, so out = p * rsqrt(mean(p^2) + out_eps) * out_w.
    const double r = 1 / std::sqrt(ss / H + 1e-5f);
    for (long long i : {0LL, 1LL, 4095LL, H - 1}) {
      EXPECT_EQ(out[t * H + i], f64_to_bf16_rn(bf16_to_f32(pre[t * H + i]) * r * bf16_to_f32(ow[i]))) << t << " " << i;
    }
  }
}

TEST_F(attn_res_reference, without_norm_the_output_is_a_convex_mix_of_the_sources) {
  const shape s = ar.model_shape(1, 0, 0);
  problem p = ar.make_problem(s, mode("nb4_plain"), 12);
  ar.reference(s, mode("nb4_plain"), p);
  const auto* blocks = reinterpret_cast<const std::uint16_t*>(p.at("blocks").bytes.data());
  const auto* pre = reinterpret_cast<const std::uint16_t*>(p.at("prefix").bytes.data());
  const auto* out = reinterpret_cast<const std::uint16_t*>(p.at("out").bytes.data());
  for (long long i = 0; i < 7168; i += 97) {
    double lo = bf16_to_f32(pre[i]), hi = lo;
    for (int n = 0; n < 4; ++n) {
      lo = std::min<double>(lo, bf16_to_f32(blocks[n * 7168 + i]));
      hi = std::max<double>(hi, bf16_to_f32(blocks[n * 7168 + i]));
    }
    const double o = bf16_to_f32(out[i]);
    EXPECT_GE(o, lo - std::fabs(lo) * 0.01) << i;
    EXPECT_LE(o, hi + std::fabs(hi) * 0.01) << i;
  }
}

// The launch geometry the kernel's shared-memory layout and token mapping rely on.
TEST_F(attn_res_reference, geometry_matches_the_kernels_layout) {
  const shape s = ar.model_shape(4097, 0, 0);
  auto knobs = [&](const std::string& id) { return space::find_variant(space.variants, space.config, id); };
  // Registers path, one token per cluster of B CTAs, no dynamic shared memory.
  device::launch_config c = ar.geometry(knobs("b7-threads128-early_blocks0-keep0-stage0-occ0-tpc1-cvt0-nc3-spread0-red0"), mode("nb8"), s);
  EXPECT_EQ(c.grid.x, 4097u * 7);
  EXPECT_EQ(c.cluster.x, 7u);
  EXPECT_EQ(c.block.x, 128u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // Staged: the busiest CTA's 4 slices of 8 blocks, prefix and delta, 512 bytes each.
  c = ar.geometry(knobs("b7-threads128-early_blocks0-keep0-stage1-occ0-tpc1-cvt0-nc3-spread0-red0"), mode("nb8"), s);
  EXPECT_EQ(c.shared_bytes, 4u * 10 * 512);
  // Eight tokens per cluster: ceil(4097 / 8) clusters, two stages.
  c = ar.geometry(knobs("b7-threads128-early_blocks1-keep0-stage1-occ0-tpc8-cvt0-nc3-spread0-red0"), mode("nb8"), s);
  EXPECT_EQ(c.grid.x, 513u * 7);
  EXPECT_EQ(c.shared_bytes, 2u * 4 * 10 * 512);
  // Without delta one staged tensor less.
  c = ar.geometry(knobs("b7-threads128-early_blocks0-keep0-stage1-occ0-tpc1-cvt0-nc3-spread0-red0"), mode("nb8_norm"), s);
  EXPECT_EQ(c.shared_bytes, 4u * 9 * 512);
  // RED: a row of 2N doubles per thread.
  c = ar.geometry(knobs("b1-threads1024-early_blocks0-keep0-stage0-occ0-tpc1-cvt1-nc3-spread0-red1"), mode("nb8"), s);
  EXPECT_EQ(c.shared_bytes, 1024u * 18 * 8);
  EXPECT_EQ(c.grid.x, 4097u);
}

}  // namespace
}  // namespace kk3::families

namespace kk3::families {
namespace {

TEST(problems, are_decided_by_the_seed_alone) {
  const auto space = load_family_space(find_family("attn_res"), KK3_CONFIG_DIR);
  const attn_res ar;
  shape s = ar.model_shape(300, 0, 0);  // 300 x 4 x 7168 blocks: several parallel chunks
  s.strided = true;
  const auto& m = space.config.modes[2];  // nb4
  const problem a = ar.make_problem(s, m, 42), b = ar.make_problem(s, m, 42), c = ar.make_problem(s, m, 43);
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].bytes, b.tensors[i].bytes) << a.tensors[i].name;
    if (a.tensors[i].use == role::input) EXPECT_NE(a.tensors[i].bytes, c.tensors[i].bytes) << a.tensors[i].name;
  }
}

}  // namespace
}  // namespace kk3::families
