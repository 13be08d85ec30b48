#pragma once
// The human formats of a comparison: an aligned text table (the terminal) and GitHub-flavoured
// markdown (a CI job summary). Both list the regressions first and the worst first; records
// that did not change are counted, and listed only when asked (`all`).
#include <string>

#include "compare/comparison.hpp"

namespace kk3::compare {

/// How much to list.
struct listing_options {
  bool all = false;  ///< list every matched record and every one-sided record
  /// Otherwise: at most this many slower records or verification regressions (the worst first;
  /// enough for any real regression, and a CI job summary stays far below GitHub's 1 MiB) ...
  std::size_t regression_limit = 500;
  std::size_t list_limit = 50;  ///< ... and this many faster, noisy or one-sided records
};

/// Aligned plain text, ending with the summary line.
std::string format_table(const comparison& c, const listing_options& listing);

/// Markdown: a heading with the outcome, the files, then one section per kind of finding.
std::string format_markdown(const comparison& c, const listing_options& listing);

/// "+10.0%", "-3.2%": an effect as a signed percentage.
std::string percent_text(double fraction);

/// What decided the significance: "U p=2.1e-08" or "intervals disjoint (BASE has 2 samples)".
std::string test_text(const timing_comparison& t);

}  // namespace kk3::compare
