#pragma once
// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do two sets of timing samples come
// from one distribution? It compares ranks, not values, so a few outliers (a preempted launch,
// a clock dip) do not sway it the way they sway a t-test. Pure arithmetic: no JSON, no GPU.
#include <vector>

namespace kk3::compare {

/// How the p-value is computed.
enum class mw_method {
  automatic,   ///< exact for small samples without ties (n1 + n2 <= 40), else asymptotic
  exact,       ///< the exact null distribution of U (needs samples without ties)
  asymptotic,  ///< the normal approximation with tie correction and continuity correction
};

/// The outcome of one test.
struct mw_result {
  double u = 0;        ///< U of the first sample: pairs (a, b) with a > b, a tie counting 1/2
  double z = 0;        ///< the normal approximation's z (0 when exact)
  double p_value = 1;  ///< two-sided p-value, in [0, 1]
  bool exact = false;  ///< the p-value comes from the exact distribution
};

/// The test of `a` against `b`. Both need at least one sample (else p = 1). `exact` with ties
/// falls back to the asymptotic p-value (the exact distribution assumes distinct values).
mw_result mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b,
                         mw_method method = mw_method::automatic);

/// The median of the values (mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> values);

}  // namespace kk3::compare
