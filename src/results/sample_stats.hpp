#pragma once
// The statistics of a record's timing samples, as the result model holds them (timing/statistics
// computes them; the codec writes them as a record's "statistics").
#include <cstddef>

namespace kk3::results {

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

}  // namespace kk3::results
