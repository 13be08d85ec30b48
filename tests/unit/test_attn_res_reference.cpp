// The attn_res float64 CPU reference and the double-to-bf16 rounding it ends with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "families/attn_res/attn_res.hpp"
#include "families/numerics.hpp"
#include "families/registry.hpp"

namespace kk3::families {
namespace {

TEST(numerics, f64_to_bf16_rounds_once) {
  EXPECT_EQ(f64_to_bf16_rn(1.0), 0x3f80);
  EXPECT_EQ(f64_to_bf16_rn(1.0 + std::ldexp(1.0, -8)), 0x3f80);  // tie: even
  EXPECT_EQ(f64_to_bf16_rn(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)),
            0x3f81);  // just above: up
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

// write at NB = 1: the prefix update, and p stored into block NB (the block write).
TEST_F(attn_res_reference, the_prefix_update_is_written_back_and_into_the_block_it_completes) {
  shape s = shape{2};
  s.strided = true;
  problem p = ar.make_problem(s, mode("write_nb1"), 11);
  const problem before = p;
  ar.reference(s, mode("write_nb1"), p);
  const long long H = 7168;
  const tensor& blocks = p.at("blocks");
  ASSERT_EQ(blocks.use, role::inout);
  const long long token_stride = static_cast<long long>(blocks.elements()) / 2,
                  block_stride = H + 64;  // strided layout
  const auto* pre0 = reinterpret_cast<const std::uint16_t*>(before.at("prefix").bytes.data());
  const auto* delta = reinterpret_cast<const std::uint16_t*>(before.at("delta").bytes.data());
  const auto* pre = reinterpret_cast<const std::uint16_t*>(p.at("prefix").bytes.data());
  const auto* b0 = reinterpret_cast<const std::uint16_t*>(before.at("blocks").bytes.data());
  const auto* b1 = reinterpret_cast<const std::uint16_t*>(blocks.bytes.data());
  for (long long t = 0; t < 2; ++t) {
    for (long long i = 0; i < H; ++i) {
      // The prefix update is the fp32 sum rounded to bf16; block 1 of the token receives it.
      ASSERT_EQ(pre[t * H + i],
                f32_to_bf16_rn(bf16_to_f32(pre0[t * H + i]) + bf16_to_f32(delta[t * H + i])));
      ASSERT_EQ(b1[t * token_stride + block_stride + i], pre[t * H + i]) << t << " " << i;
    }
  }
  // Everything else of the blocks tensor (block 0, the padding) is untouched.
  std::size_t changed = 0;
  for (std::size_t i = 0; i < blocks.elements(); ++i) changed += b0[i] != b1[i];
  EXPECT_LE(changed, static_cast<std::size_t>(2 * H));
  EXPECT_GT(changed, static_cast<std::size_t>(H));  // random bits: nearly every element changes
}

TEST_F(attn_res_reference, one_source_is_the_rms_normed_prefix) {
  const shape s = shape{2};
  problem p = ar.make_problem(s, mode("write_nb0"), 11);
  ar.reference(s, mode("write_nb0"), p);
  const long long H = 7168;
  const auto* pre = reinterpret_cast<const std::uint16_t*>(p.at("prefix").bytes.data());
  const auto* ow = reinterpret_cast<const std::uint16_t*>(p.at("out_w").bytes.data());
  const auto* out = reinterpret_cast<const std::uint16_t*>(p.at("out").bytes.data());
  const auto* blocks = reinterpret_cast<const std::uint16_t*>(p.at("blocks").bytes.data());
  EXPECT_TRUE(std::none_of(p.tensors.begin(), p.tensors.end(),
                           [](const tensor& t) { return t.name == "delta"; }));
  for (long long t = 0; t < 2; ++t) {
    double ss = 0;
    for (long long i = 0; i < H; ++i) {
      ASSERT_EQ(blocks[t * H + i], pre[t * H + i]);  // the block-0 write
      ss += std::pow(bf16_to_f32(pre[t * H + i]), 2);
    }
    // One source: weight 1, so out = p * rsqrt(mean(p^2) + out_eps) * out_w.
    const double r = 1 / std::sqrt(ss / H + 1e-5f);
    for (long long i : {0LL, 1LL, 4095LL, H - 1}) {
      EXPECT_EQ(out[t * H + i],
                f64_to_bf16_rn(bf16_to_f32(pre[t * H + i]) * r * bf16_to_f32(ow[i])))
          << t << " " << i;
    }
  }
}

TEST_F(attn_res_reference, the_mix_is_a_convex_combination_of_the_sources) {
  const shape s = shape{1};
  problem p = ar.make_problem(s, mode("final_nb8"), 12);  // no output norm: out = acc / s
  ar.reference(s, mode("final_nb8"), p);
  const auto* blocks = reinterpret_cast<const std::uint16_t*>(p.at("blocks").bytes.data());
  const auto* pre = reinterpret_cast<const std::uint16_t*>(p.at("prefix").bytes.data());
  const auto* out = reinterpret_cast<const std::uint16_t*>(p.at("out").bytes.data());
  for (long long i = 0; i < 7168; i += 97) {
    double lo = bf16_to_f32(pre[i]), hi = lo;
    for (int n = 0; n < 8; ++n) {
      lo = std::min<double>(lo, bf16_to_f32(blocks[n * 7168 + i]));
      hi = std::max<double>(hi, bf16_to_f32(blocks[n * 7168 + i]));
    }
    const double o = bf16_to_f32(out[i]);
    EXPECT_GE(o, lo - std::fabs(lo) * 0.01) << i;
    EXPECT_LE(o, hi + std::fabs(hi) * 0.01) << i;
  }
}

// The launch geometry the kernel's shared-memory layout and token mapping rely on
// (kernels/attn_res.cuh: CTA r takes slices [r K / B, (r + 1) K / B), a warp GPW of them; the
// dynamic shared memory is the ring of STAGE = 1, [slot][the busiest CTA's slices][32 units of
// 16 bytes]: STAGES chunks of NC sources and delta's row, or all the token's rows when NC = 0 or
// when they are fewer; the rest of the kernel's shared memory is static).
TEST_F(attn_res_reference, geometry_matches_the_kernels_layout) {
  const shape s = shape{4097};
  auto knobs = [&](const std::string& id) {
    return space::find_variant(space.variants, space.config, id);
  };
  // The reference: one CTA per token, ceil(28 / 4) = 7 warps; rows in registers, no ring.
  device::launch_config c =
      ar.geometry(knobs("b1-gpw4-nc1-stage0-unroll1-stages1-tpc1-trigger0"), mode("common_nb8"), s);
  EXPECT_EQ(c.grid.x, 4097u);
  EXPECT_EQ(c.cluster.x, 1u);
  EXPECT_EQ(c.block.x, 224u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // B = 7: 4 slices per CTA, one per warp; rows in registers.
  c = ar.geometry(knobs("b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"), mode("common_nb8"), s);
  EXPECT_EQ(c.grid.x, 4097u * 7);
  EXPECT_EQ(c.cluster.x, 7u);
  EXPECT_EQ(c.block.x, 128u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // STAGE = 2, the two passes: one CTA of 14 warps per token, no ring (its partials are static).
  c = ar.geometry(knobs("b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger0"), mode("post_nb8"), s);
  EXPECT_EQ(c.grid.x, 4097u);
  EXPECT_EQ(c.cluster.x, 1u);
  EXPECT_EQ(c.block.x, 448u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // Four tokens per cluster: ceil(4097 / 4) clusters of one CTA of 7 warps; a ring of two
  // chunks of two sources and delta's row, 5 of the token's 10 rows, of all 28 slices.
  c = ar.geometry(knobs("b1-gpw4-nc2-stage1-unroll1-stages2-tpc4-trigger1"), mode("common_nb8"), s);
  EXPECT_EQ(c.grid.x, 1025u);
  EXPECT_EQ(c.cluster.x, 1u);
  EXPECT_EQ(c.block.x, 224u);
  EXPECT_EQ(c.shared_bytes, 5u * 28 * 512);
  // At NB = 1 the same ring (2 x 2 + 1 = 5 rows) would exceed the token's 3 rows: it holds those.
  c = ar.geometry(knobs("b1-gpw4-nc2-stage1-unroll1-stages2-tpc4-trigger1"), mode("common_nb1"), s);
  EXPECT_EQ(c.shared_bytes, 3u * 28 * 512);
  // NC = 3 above N = 2 counts as 2: three chunks of two and delta, again more than the 3 rows.
  c = ar.geometry(knobs("b1-gpw7-nc3-stage1-unroll1-stages2-tpc4-trigger1"), mode("common_nb1"), s);
  EXPECT_EQ(c.grid.x, 1025u);
  EXPECT_EQ(c.block.x, 128u);
  EXPECT_EQ(c.shared_bytes, 3u * 28 * 512);
  // B = 4 over 28 slices: 7 each, one a warp: 7 warps; the block write adds no row.
  c = ar.geometry(knobs("b4-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"), mode("write_nb3"), s);
  EXPECT_EQ(c.grid.x, 4097u * 4);
  EXPECT_EQ(c.cluster.x, 4u);
  EXPECT_EQ(c.block.x, 224u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // B = 2: 14 slices each, one a warp: 14 warps.
  c = ar.geometry(knobs("b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"), mode("write_nb3"), s);
  EXPECT_EQ(c.grid.x, 4097u * 2);
  EXPECT_EQ(c.cluster.x, 2u);
  EXPECT_EQ(c.block.x, 448u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // Unstaged, without the output norm: 14 warps of 2 slices, no dynamic shared memory.
  c = ar.geometry(knobs("b1-gpw2-nc2-stage0-unroll1-stages1-tpc1-trigger1"), mode("final_nb8"), s);
  EXPECT_EQ(c.grid.x, 4097u);
  EXPECT_EQ(c.block.x, 448u);
  EXPECT_EQ(c.shared_bytes, 0u);
}

// Every case the model calls, every NB from 0 to 8 (SPEC 1.2), is a mode.
TEST_F(attn_res_reference, the_modes_cover_every_case_the_model_calls) {
  auto has = [&](const std::string& name, long long nb, bool delta, bool norm, bool write) {
    for (const auto& m : space.config.modes) {
      if (m.name != name) continue;
      return m.define_or("NB", -1) == nb && (m.define_or("HAS_DELTA", 0) != 0) == delta &&
             (m.define_or("HAS_OUT_NORM", 0) != 0) == norm &&
             (m.define_or("BLOCK_WRITE", 0) != 0) == write;
    }
    return false;
  };
  EXPECT_TRUE(has("write_nb0", 0, false, true, true));
  for (int nb = 1; nb <= 7; ++nb)
    EXPECT_TRUE(has("write_nb" + std::to_string(nb), nb, true, true, true)) << nb;
  for (int nb = 1; nb <= 8; ++nb) {
    EXPECT_TRUE(has("post_nb" + std::to_string(nb), nb, false, true, false)) << nb;
    EXPECT_TRUE(has("common_nb" + std::to_string(nb), nb, true, true, false)) << nb;
  }
  EXPECT_TRUE(has("final_nb8", 8, true, false, false));
  EXPECT_EQ(space.config.modes.size(), 25u);
}

}  // namespace
}  // namespace kk3::families

namespace kk3::families {
namespace {

TEST(problems, are_decided_by_the_seed_alone) {
  const auto space = load_family_space(find_family("attn_res"), KK3_CONFIG_DIR);
  const attn_res ar;
  shape s = shape{300};  // 300 x 4 x 7168 blocks: several parallel chunks
  s.strided = true;
  const auto& m = space::find_mode(space.config, "write_nb4");
  const problem a = ar.make_problem(s, m, 42), b = ar.make_problem(s, m, 42),
                c = ar.make_problem(s, m, 43);
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].bytes, b.tensors[i].bytes) << a.tensors[i].name;
    if (a.tensors[i].use == role::input)
      EXPECT_NE(a.tensors[i].bytes, c.tensors[i].bytes) << a.tensors[i].name;
  }
}

}  // namespace
}  // namespace kk3::families
