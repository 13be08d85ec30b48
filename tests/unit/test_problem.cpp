// families::problem: what a family's make_problem builds its tensors in.
#include <gtest/gtest.h>

#include "families/problem.hpp"

#include <cmath>
#include <random>

namespace kk3::families {
namespace {

// A family fills the tensor add() returned, then adds the next ones (expert_scale fills x and
// scale after adding y); the reference must still be the problem's tensor after later adds. With
// the tensors in a std::vector it dangled, and expert_scale's make_problem wrote through it
// (a segfault on the GPU machine, 2026-12-03).
TEST(problem, the_tensor_add_returns_stays_the_problems_after_more_adds) {
  problem p;
  tensor& first = p.add("first", dtype::fp32, {4}, role::input);
  for (int i = 0; i < 64; ++i) p.add("t" + std::to_string(i), dtype::u8, {1}, role::input);
  ASSERT_EQ(&first, &p.at("first"));
  first.data<float>()[3] = 2.5f;
  EXPECT_EQ(p.at("first").data<float>()[3], 2.5f);
  EXPECT_EQ(p.at("first").bytes.size(), 4 * sizeof(float));
}

// fast_normal draws the inputs of attn_res (issue 43: std::normal_distribution took 4.6
// core-seconds a GB, a sixth of the sweep). Its values must be a standard normal's: the table's
// cells at their quantiles (Phi(-1) = 0.158655, Phi(1.96) = 0.975002), symmetric, and a large
// sample's moments within a few standard errors of 0, 1, 0 and 3.
TEST(fast_normal, its_table_is_the_normal_quantiles_and_its_draws_have_the_normals_moments) {
  const float* q = fast_normal::quantiles();
  constexpr int k = 1 << 16;
  for (int i = 1; i < k; ++i) ASSERT_LT(q[i - 1], q[i]) << i;
  for (int i = 0; i < k / 2; ++i) ASSERT_EQ(q[i], -q[k - 1 - i]) << i;
  // cell 10397 has centre (10397.5 / 65536) = 0.158653: Phi^-1 of it is -1.0000 to 4 places.
  EXPECT_NEAR(q[10397], -1.0, 2e-4);
  EXPECT_NEAR(q[63898], 1.96, 2e-4);  // (63898.5 / 65536) = 0.975014
  EXPECT_NEAR(q[k - 1], 4.3, 0.1);

  std::mt19937_64 rng(20261206);
  fast_normal normal(rng);
  constexpr int n = 1 << 22;
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = normal();
    m1 += x;
    m2 += x * x;
    m3 += x * x * x;
    m4 += x * x * x * x;
  }
  m1 /= n, m2 /= n, m3 /= n, m4 /= n;
  const double se = 1.0 / std::sqrt(static_cast<double>(n));  // 4.9e-4
  EXPECT_NEAR(m1, 0.0, 5 * se);
  EXPECT_NEAR(m2, 1.0, 5 * std::sqrt(2.0) * se);
  EXPECT_NEAR(m3, 0.0, 5 * std::sqrt(15.0) * se);
  EXPECT_NEAR(m4, 3.0, 5 * std::sqrt(96.0) * se);
}

// The values depend on the generator alone: two samplers on equal generators agree, and four
// values come from each 64-bit draw (its 16-bit quarters, low first).
TEST(fast_normal, the_generator_alone_decides_the_values) {
  std::mt19937_64 a(7), b(7), raw(7);
  fast_normal na(a), nb(b);
  const float* q = fast_normal::quantiles();
  for (int draw = 0; draw < 100; ++draw) {
    const std::uint64_t bits = raw();
    for (int quarter = 0; quarter < 4; ++quarter) {
      const float x = na();
      EXPECT_EQ(x, nb());
      EXPECT_EQ(x, q[(bits >> (16 * quarter)) & 0xffffu]) << draw << " " << quarter;
    }
  }
}

}  // namespace
}  // namespace kk3::families
