// The Mann-Whitney U test against published values: SciPy's documentation example (exact and
// asymptotic p-values), R's wilcox.test example (Hollander & Wolfe), and a tied sample whose
// tie-corrected asymptotic p-value was computed independently from the textbook formula.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compare/mann_whitney.hpp"

namespace kk3::compare {
namespace {

// scipy.stats.mannwhitneyu documentation: ages of male and female workers.
const std::vector<double> k_males = {19, 22, 16, 29, 24};
const std::vector<double> k_females = {20, 11, 17, 12};

TEST(mann_whitney, scipy_example_exact) {
  const mw_result r = mann_whitney_u(k_males, k_females, mw_method::exact);
  EXPECT_DOUBLE_EQ(r.u, 17.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);  // 14 of 126 arrangements, two-sided
}

TEST(mann_whitney, scipy_example_asymptotic) {
  const mw_result r = mann_whitney_u(k_males, k_females, mw_method::asymptotic);
  EXPECT_DOUBLE_EQ(r.u, 17.0);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);  // with continuity correction
  EXPECT_NEAR(r.z, 1.5921683328090657, 1e-12);
}

TEST(mann_whitney, r_wilcox_test_example_exact) {
  // R: wilcox.test(x, y, alternative = "g") gives W = 35, p-value = 0.1272; two-sided twice that.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const mw_result r = mann_whitney_u(x, y);  // automatic: small and without ties -> exact
  EXPECT_DOUBLE_EQ(r.u, 35.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.2544122544122544, 1e-12);  // 764 of 3003 arrangements
  EXPECT_NEAR(r.p_value / 2, 0.1272, 5e-5);
}

TEST(mann_whitney, ties_use_the_corrected_normal_approximation) {
  // Ties 2 (x3), 3 (x4), 4 (x2), 6 (x2): sigma^2 = n1 n2 / 12 * (n + 1 - sum(t^3 - t) / (n (n -
  // 1))) = 42 / 12 * (14 - 96 / 156); z = (32.5 - 21 - 0.5) / sigma = 1.60715, p = erfc(z / sqrt
  // 2).
  const std::vector<double> a = {1, 2, 2, 3, 3, 3, 5};
  const std::vector<double> b = {2, 3, 4, 4, 6, 6};
  for (mw_method m : {mw_method::automatic, mw_method::exact, mw_method::asymptotic}) {
    const mw_result r = mann_whitney_u(a, b, m);
    EXPECT_DOUBLE_EQ(r.u, 9.5);
    EXPECT_FALSE(r.exact) << "the exact distribution assumes distinct values";
    EXPECT_NEAR(r.p_value, 0.10802203343404664, 1e-12);
  }
  // The exact permutation p-value with these ties is 0.10023 (enumerating all 1716 splits): the
  // approximation is close.
  EXPECT_NEAR(mann_whitney_u(a, b).p_value, 0.10023310023310024, 0.01);
}

TEST(mann_whitney, complete_separation_of_twenty_and_twenty) {
  std::vector<double> fast, slow;
  for (int i = 0; i < 20; ++i) {
    fast.push_back(1.0 + 0.001 * i);
    slow.push_back(1.1 + 0.001 * i);
  }
  const mw_result r = mann_whitney_u(slow, fast);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 400.0);
  EXPECT_NEAR(r.p_value, 2.0 / 137846528820.0, 1e-20);  // 2 / C(40, 20)
  const mw_result asym = mann_whitney_u(slow, fast, mw_method::asymptotic);
  EXPECT_LT(asym.p_value, 1e-6);
}

TEST(mann_whitney, symmetric_in_its_arguments) {
  const mw_result ab = mann_whitney_u(k_males, k_females);
  const mw_result ba = mann_whitney_u(k_females, k_males);
  EXPECT_DOUBLE_EQ(ab.u + ba.u, 20.0);
  EXPECT_DOUBLE_EQ(ab.p_value, ba.p_value);
}

TEST(mann_whitney, identical_or_degenerate_samples_show_no_difference) {
  const std::vector<double> a = {1.50, 1.51, 1.49, 1.52, 1.50, 1.48};
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, a).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({2, 2, 2}, {2, 2, 2, 2}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, a).p_value, 1.0);
}

TEST(mann_whitney, median_of) {
  EXPECT_DOUBLE_EQ(median_of({}), 0.0);
  EXPECT_DOUBLE_EQ(median_of({3}), 3.0);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace kk3::compare
