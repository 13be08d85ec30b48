// Statistics and the stopping rule on synthetic samples.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "timing/statistics.hpp"

namespace kk3::timing {
namespace {

TEST(statistics, hand_worked_set) {
  const sample_stats s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.samples, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.iqr, 2);  // 4 - 2
  EXPECT_NEAR(s.stdev, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(s.rel_stderr_median, 1.2533 * (2 / 1.349) / std::sqrt(5.0) / 3, 1e-12);
}

TEST(statistics, empty_and_single) {
  EXPECT_EQ(summarize({}).samples, 0u);
  const sample_stats one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stdev, 0);
  EXPECT_DOUBLE_EQ(one.rel_stderr_median, 0);
}

TEST(statistics, median_is_robust_to_an_outlier) {
  std::vector<double> v(99, 10.0);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] += 0.01 * static_cast<double>(i % 7);
  const double before = summarize(v).rel_stderr_median;
  v.push_back(1000.0);  // one preempted sample
  const sample_stats s = summarize(v);
  EXPECT_NEAR(s.median, 10.03, 0.02);
  EXPECT_NEAR(s.rel_stderr_median, before, before * 0.1);
  EXPECT_GT(s.stdev, 50);  // the outlier shows in the stdev, not in the median's error
}

TEST(stopping, waits_for_min_samples_and_time) {
  stopping_rule rule;
  rule.min_samples = 10;
  rule.min_time_s = 0.01;
  const std::vector<double> flat(9, 5.0);
  EXPECT_EQ(check_stop(rule, flat, 1.0 /* but max_time 0.4 */), stop_reason::max_time);
  EXPECT_EQ(check_stop(rule, flat, 0.1), stop_reason::running);  // 9 < 10 samples
  const std::vector<double> ten(10, 5.0);
  EXPECT_EQ(check_stop(rule, ten, 0.001), stop_reason::running);  // too early
  EXPECT_EQ(check_stop(rule, ten, 0.02), stop_reason::converged);
}

TEST(stopping, noisy_samples_need_more_until_the_target) {
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> noise(100.0, 5.0);  // 5% spread
  stopping_rule rule;
  rule.noise_target = 0.005;
  rule.max_time_s = 1e9;
  std::vector<double> kept;
  std::size_t stopped_at = 0;
  for (std::size_t i = 1; i <= 5000; ++i) {
    kept.push_back(noise(rng));
    if (check_stop(rule, kept, 1.0) != stop_reason::running) {
      stopped_at = i;
      break;
    }
  }
  // 1.2533 * 5 / sqrt(n) / 100 < 0.005 needs n > ~157.
  EXPECT_GT(stopped_at, 100u);
  EXPECT_LT(stopped_at, 260u);
  EXPECT_LT(summarize(kept).rel_stderr_median, 0.005);
}

TEST(stopping, max_samples_and_max_time) {
  stopping_rule rule;
  rule.max_samples = 20;
  rule.noise_target = 0;  // never converges
  EXPECT_EQ(check_stop(rule, std::vector<double>(20, 1.0), 0.05), stop_reason::max_samples);
  EXPECT_EQ(check_stop(rule, std::vector<double>(15, 1.0), 0.5), stop_reason::max_time);
  EXPECT_EQ(check_stop(rule, std::vector<double>(15, 1.0), 0.05), stop_reason::running);
}

TEST(throttle, flags_slow_clocks_against_the_median) {
  const auto flags = flag_throttled({1980, 1980, 1400, 1975, 0, 1985, 1700}, 0.9);
  EXPECT_EQ(flags, (std::vector<bool>{false, false, true, false, false, false, true}));
  EXPECT_EQ(flag_throttled({0, 0}, 0.9), (std::vector<bool>{false, false}));
}

}  // namespace
}  // namespace kk3::timing
