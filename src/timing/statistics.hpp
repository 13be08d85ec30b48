#pragma once
// Computing summary statistics of timing samples, and the adaptive stopping rule.
#include <cstddef>
#include <vector>

#include "results/sample_stats.hpp"

namespace kk3::timing {

/// The statistics type is the result model's (results/sample_stats.hpp); timing computes it.
using results::sample_stats;

/// The q-quantile (0..1) of sorted samples, interpolating linearly between order statistics.
double quantile_sorted(const std::vector<double>& sorted, double q);
/// Statistics of the samples (any order). All zero for an empty set.
[[nodiscard]] sample_stats summarize(const std::vector<double>& samples);

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
[[nodiscard]] stop_reason check_stop(const stopping_rule& rule, const std::vector<double>& kept,
                                     double elapsed_s);

/// Marks samples whose SM clock is below `ratio` times the median clock of all samples
/// (a throttled or not yet boosted GPU); a clock <= 0 means unknown and is never flagged.
std::vector<bool> flag_throttled(const std::vector<double>& clock_mhz, double ratio);

}  // namespace kk3::timing
