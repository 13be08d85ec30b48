// The CPU emulation of the GPU's conversions, on hand-worked cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "families/numerics.hpp"

namespace kk3::families {
namespace {

TEST(numerics, e4m3_values_seen_on_the_h200) {
  // H200.md: cvt.rn.satfinite e4m3 results observed on the GPU.
  EXPECT_EQ(f32_to_e4m3_satfinite(0.0f), 0x00);
  EXPECT_EQ(f32_to_e4m3_satfinite(1.0f), 0x38);
  EXPECT_EQ(f32_to_e4m3_satfinite(448.0f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(1000.0f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(-1000.0f), 0xfe);
  EXPECT_EQ(f32_to_e4m3_satfinite(0.0625f), 0x18);
  EXPECT_EQ(f32_to_e4m3_satfinite(3.14159f), 0x45);
  EXPECT_EQ(f32_to_e4m3_satfinite(-2.5f), 0xc2);
}

TEST(numerics, e4m3_rounds_ties_to_even) {
  EXPECT_EQ(f32_to_e4m3_satfinite(1.0625f), 0x38);  // halfway 1.0 (even) / 1.125
  EXPECT_EQ(f32_to_e4m3_satfinite(1.1875f), 0x3a);  // halfway 1.125 / 1.25 (even)
  EXPECT_EQ(f32_to_e4m3_satfinite(1.05f), 0x38);    // below the midpoint 1.0625
  EXPECT_EQ(f32_to_e4m3_satfinite(1.07f), 0x39);    // above it
  EXPECT_EQ(f32_to_e4m3_satfinite(15.5f), 0x58);    // 15 (odd mantissa) / 16: up to the even 16
  EXPECT_EQ(f32_to_e4m3_satfinite(-17.0f), 0xd8);   // -16 (even) / -18: to -16
}

TEST(numerics, e4m3_saturates_at_448) {
  EXPECT_EQ(f32_to_e4m3_satfinite(447.0f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(463.9f), 0x7e);  // below the tie with 480
  EXPECT_EQ(f32_to_e4m3_satfinite(464.0f), 0x7e);  // the tie: 480 would be NaN's pattern
  EXPECT_EQ(f32_to_e4m3_satfinite(1e30f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(std::numeric_limits<float>::infinity()), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(-std::numeric_limits<float>::infinity()), 0xfe);
  EXPECT_EQ(f32_to_e4m3_satfinite(416.0f), 0x7d);
}

TEST(numerics, e4m3_subnormals_zero_and_nan) {
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(1.0f, -9)), 0x01);
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(1.5f, -9)), 0x02);   // tie 1 / 2: even
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(1.0f, -10)), 0x00);  // tie 0 / 1: even
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(7.5f, -9)), 0x08);   // rounds up into the least normal
  EXPECT_EQ(f32_to_e4m3_satfinite(-0.0f), 0x80);
  EXPECT_EQ(f32_to_e4m3_satfinite(std::nanf("")), 0x7f);
  for (int b = 0; b < 256; ++b) {  // every finite pattern round-trips
    if ((b & 0x7f) == 0x7f) continue;
    EXPECT_EQ(f32_to_e4m3_satfinite(e4m3_to_f32(static_cast<std::uint8_t>(b))), b) << b;
  }
}

TEST(numerics, bf16_round_to_nearest_even) {
  EXPECT_EQ(f32_to_bf16_rn(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16_rn(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: even
  EXPECT_EQ(f32_to_bf16_rn(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: even
  EXPECT_EQ(f32_to_bf16_rn(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(f32_to_bf16_rn(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_bf16_rn(3.4e38f), 0x7f80);  // rounds to infinity
  EXPECT_EQ(f32_to_bf16_rn(std::nanf("")), 0x7fff);
  EXPECT_FLOAT_EQ(bf16_to_f32(0x3fc0), 1.5f);
}

}  // namespace
}  // namespace kk3::families
