#include "compare/timing_verdict.hpp"

#include <algorithm>
#include <cmath>

#include "compare/mann_whitney.hpp"

namespace kk3::compare {
namespace {

constexpr std::size_t k_min_test_samples = 3;  ///< fewer raw samples: the interval test
constexpr double k_sample_agreement = 0.01;    ///< samples' median vs statistics' median
constexpr double k_interval_sigmas = 2;        ///< the interval: median +- 2 standard errors

std::string interval_note(const results::record& base, const results::record& next) {
  for (const auto* r : {&base, &next}) {
    const char* side = r == &base ? "BASE" : "NEW";
    if (r->samples_us.size() < k_min_test_samples) {
      return std::string(side) + " has " + std::to_string(r->samples_us.size()) + " sample" +
             (r->samples_us.size() == 1 ? "" : "s");
    }
    if (!samples_consistent(*r))
      return std::string(side) + "'s samples disagree with its statistics";
  }
  return {};
}

}  // namespace

const char* to_string(verdict v) {
  switch (v) {
    case verdict::slower:
      return "slower";
    case verdict::faster:
      return "faster";
    case verdict::noisy:
      return "noisy";
    case verdict::same:
      return "same";
  }
  return "?";
}

bool is_timed(const results::record& r) {
  return r.stats && std::isfinite(r.stats->median) && r.stats->median > 0;
}

bool samples_consistent(const results::record& r) {
  if (!r.stats || r.samples_us.size() < k_min_test_samples) return false;
  const double m = median_of(r.samples_us);
  return std::fabs(m / r.stats->median - 1) <= k_sample_agreement;
}

timing_comparison compare_timing(const results::record& base, const results::record& next,
                                 const verdict_thresholds& o) {
  timing_comparison c;
  c.base_median_us = base.stats->median;
  c.new_median_us = next.stats->median;
  c.effect = c.new_median_us / c.base_median_us - 1;

  c.test_note = interval_note(base, next);
  if (c.test_note.empty()) {
    c.test = test_kind::mann_whitney;
    c.p_value = mann_whitney_u(next.samples_us, base.samples_us).p_value;
    c.significant = c.p_value < o.alpha;
  } else {
    // Disjoint intervals median +- 2 * rel_stderr * median. A negative or missing standard
    // error counts as zero.
    c.test = test_kind::intervals;
    auto half = [](const results::record& r) {
      const double rel = std::isfinite(r.stats->rel_stderr_median) ? r.stats->rel_stderr_median : 0;
      return k_interval_sigmas * std::max(rel, 0.0) * r.stats->median;
    };
    const double base_half = half(base), next_half = half(next);
    c.significant = c.new_median_us - next_half > c.base_median_us + base_half ||
                    c.new_median_us + next_half < c.base_median_us - base_half;
  }

  if (!(std::fabs(c.effect) > o.threshold)) {
    c.result = verdict::same;
  } else if (!c.significant) {
    c.result = verdict::noisy;
  } else {
    c.result = c.effect > 0 ? verdict::slower : verdict::faster;
  }
  return c;
}

}  // namespace kk3::compare
