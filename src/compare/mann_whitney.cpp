#include "compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace kk3::compare {
namespace {

/// How many of the C(m + n, m) arrangements of m first-sample and n second-sample values give
/// each U = 0..m*n, through the positive recursion c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u)
/// (the largest value belongs to the first sample, which then beats all n, or to the second).
/// In doubles: no cancellation, and far from overflow for the sizes used here.
std::vector<double> u_counts(std::size_t m, std::size_t n) {
  // row[j] holds c(i, j, .) for the current i; previous holds c(i - 1, j, .).
  std::vector<std::vector<double>> previous(n + 1), row(n + 1);
  for (std::size_t j = 0; j <= n; ++j) previous[j] = {1.0};  // c(0, j, 0) = 1
  for (std::size_t i = 1; i <= m; ++i) {
    row[0] = {1.0};  // c(i, 0, 0) = 1
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double> c(i * j + 1, 0.0);
      for (std::size_t u = 0; u < previous[j].size(); ++u) c[u + j] += previous[j][u];
      for (std::size_t u = 0; u < row[j - 1].size(); ++u) c[u] += row[j - 1][u];
      row[j] = std::move(c);
    }
    std::swap(previous, row);
  }
  return previous[n];
}

double exact_p(double u, std::size_t m, std::size_t n) {
  const std::vector<double> counts = u_counts(m, n);
  double total = 0, at_most = 0, at_least = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    total += counts[k];
    if (static_cast<double>(k) <= u) at_most += counts[k];
    if (static_cast<double>(k) >= u) at_least += counts[k];
  }
  return std::min(1.0, 2.0 * std::min(at_most, at_least) / total);
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return (lower + upper) / 2;
}

mw_result mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b,
                         mw_method method) {
  mw_result r;
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return r;

  // Ranks of the pooled values, ties sharing their average rank.
  std::vector<std::pair<double, bool>> pooled;  // value, from the first sample
  pooled.reserve(n);
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_a += average_rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  const double dn = static_cast<double>(n);
  r.u = rank_sum_a - dn1 * (dn1 + 1) / 2;

  const bool ties = tie_term > 0;
  const bool use_exact =
      !ties && (method == mw_method::exact || (method == mw_method::automatic && n <= 40));
  if (use_exact) {
    r.exact = true;
    r.p_value = exact_p(r.u, n1, n2);
    return r;
  }
  const double mean = dn1 * dn2 / 2;
  const double variance = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (variance <= 0) return r;  // every value tied: no evidence of a difference
  const double u_far = std::max(r.u, dn1 * dn2 - r.u);  // the larger of U1 and U2
  r.z = (u_far - mean - 0.5) / std::sqrt(variance);
  r.p_value = std::clamp(std::erfc(r.z / std::sqrt(2.0)), 0.0, 1.0);  // 2 * P(Z > z)
  return r;
}

}  // namespace kk3::compare
