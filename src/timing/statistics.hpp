#pragma once
// Summary statistics of timing samples and the adaptive stopping rule.
#include <cstddef>
#include <vector>

namespace kk3::timing {

/// Statistics of a set of samples, in the samples' unit (microseconds in kk3tune).
struct sample_stats {
  std::size_t samples = 0;
  double min = 0, max = 0, median = 0, mean = 0, p10 = 0, p90 = 0;
  double stdev = 0;  ///< sample standard deviation (n - 1)
  double iqr = 0;    ///< p75 - p25
  /// Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with sigma
  /// estimated robustly as IQR / 1.349 (one outlier barely moves it). 0 for n < 2.
  double rel_stderr_median = 0;
};

/// The q-quantile (0..1) of sorted samples, interpolating linearly between order statistics.
double quantile_sorted(const std::vector<double>& sorted, double q);
/// Statistics of the samples (any order). All zero for an empty set.
sample_stats summarize(const std::vector<double>& samples);

/// When to stop taking samples.
struct stopping_rule {
  double noise_target = 0.005;     ///< stop once rel_stderr_median is below this (0.5%)
  std::size_t min_samples = 10;    ///< never stop before this many kept samples
  std::size_t max_samples = 5000;  ///< stop at this many kept samples
  double min_time_s = 0.01;        ///< never stop before this much sampling time
  double max_time_s = 0.4;         ///< stop after this much sampling time, converged or not
};

/// Why sampling stopped (or `running` when it should go on).
enum class stop_reason { running, converged, max_samples, max_time };
const char* to_string(stop_reason r);

/// Whether to stop, given the kept samples and the sampling time spent so far.
stop_reason check_stop(const stopping_rule& rule, const std::vector<double>& kept, double elapsed_s);

/// Marks samples whose SM clock is below `ratio` times the median clock of all samples
/// (a throttled or not yet boosted GPU); a clock <= 0 means unknown and is never flagged.
std::vector<bool> flag_throttled(const std::vector<double>& clock_mhz, double ratio);

}  // namespace kk3::timing
