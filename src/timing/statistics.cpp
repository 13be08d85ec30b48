#include "timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kk3::timing {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

sample_stats summarize(const std::vector<double>& samples) {
  sample_stats s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile_sorted(sorted, 0.5);
  s.p10 = quantile_sorted(sorted, 0.1);
  s.p90 = quantile_sorted(sorted, 0.9);
  s.iqr = quantile_sorted(sorted, 0.75) - quantile_sorted(sorted, 0.25);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  if (sorted.size() >= 2) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / (n - 1));
    const double sigma = s.iqr / 1.349;
    s.rel_stderr_median = s.median > 0 ? 1.2533 * sigma / std::sqrt(n) / s.median : 0;
  }
  return s;
}

const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::running:
      return "running";
    case stop_reason::converged:
      return "converged";
    case stop_reason::max_samples:
      return "max_samples";
    case stop_reason::max_time:
      return "max_time";
  }
  return "unknown";
}

stop_reason check_stop(const stopping_rule& rule, const std::vector<double>& kept,
                       double elapsed_s) {
  if (kept.size() >= rule.max_samples) return stop_reason::max_samples;
  if (elapsed_s >= rule.max_time_s) return stop_reason::max_time;
  if (kept.size() < std::max<std::size_t>(rule.min_samples, 2) || elapsed_s < rule.min_time_s) {
    return stop_reason::running;
  }
  return summarize(kept).rel_stderr_median < rule.noise_target ? stop_reason::converged
                                                               : stop_reason::running;
}

std::vector<bool> flag_throttled(const std::vector<double>& clock_mhz, double ratio) {
  std::vector<double> known;
  for (double c : clock_mhz) {
    if (c > 0) known.push_back(c);
  }
  std::vector<bool> flags(clock_mhz.size(), false);
  if (known.empty()) return flags;
  std::sort(known.begin(), known.end());
  const double threshold = ratio * quantile_sorted(known, 0.5);
  for (std::size_t i = 0; i < clock_mhz.size(); ++i)
    flags[i] = clock_mhz[i] > 0 && clock_mhz[i] < threshold;
  return flags;
}

}  // namespace kk3::timing
