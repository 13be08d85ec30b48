#pragma once
// One record timed in both files: how much its median moved, and whether the move stands out of
// the noise. The statistics blocks are the source of truth for the medians; the raw samples only
// serve the significance test, and only when they agree with those statistics (a file whose
// statistics were edited but whose samples were not is judged by its statistics).
#include <string>

#include "results/reader.hpp"

namespace kk3::compare {

/// What a timed pair amounts to.
enum class verdict {
  slower,  ///< |effect| > threshold and significant, new median larger: a regression
  faster,  ///< |effect| > threshold and significant, new median smaller
  noisy,   ///< |effect| > threshold but not significant
  same,    ///< |effect| <= threshold
};
const char* to_string(verdict v);

/// Which significance test decided.
enum class test_kind {
  mann_whitney,  ///< on the raw samples (both sides >= 3 samples consistent with their statistics)
  intervals,     ///< median +- 2 standard errors of each side, disjoint or not
};

/// The thresholds of a comparison.
struct verdict_thresholds {
  double threshold = 0.05;  ///< |effect| above this fraction is a change (0.05 = 5%)
  double alpha = 0.05;      ///< the Mann-Whitney p-value below which a change is significant
};

/// The outcome for one pair.
struct timing_comparison {
  double base_median_us = 0, new_median_us = 0;
  double effect = 0;  ///< new median / base median - 1 (0.10: 10% slower)
  test_kind test = test_kind::intervals;
  double p_value = 1;        ///< Mann-Whitney's two-sided p-value (1 for the interval test)
  bool significant = false;  ///< the test found a difference
  verdict result = verdict::same;
  std::string test_note;  ///< for the interval test: why the samples were not used
};

/// Whether a record carries timing (statistics with a positive median).
bool is_timed(const results::record& r);

/// Whether the record's raw samples can stand for it: at least 3, and their median within 1%
/// of the statistics' median.
bool samples_consistent(const results::record& r);

/// Compares two records that are both timed (is_timed).
timing_comparison compare_timing(const results::record& base, const results::record& next,
                                 const verdict_thresholds& options);

}  // namespace kk3::compare
