#pragma once
// Selection (SPEC 2, "Selection"): per token count the fastest qualified variant, with a tie
// band that keeps the incumbent in place unless a challenger is faster beyond the measured noise
// and a minimum gain; adjacent token counts with the same winner merge into ranges.
// Pure logic over measured medians: no GPU, no JSON.
#include <optional>
#include <string>
#include <vector>

namespace kk3::select {

/// One variant's final-round time at one token count.
struct timed_variant {
  std::string variant;
  double median_us = 0;
  double rel_stderr = 0;  ///< relative standard error of the median (0.004 = 0.4%)
  bool qualified = false; ///< verified and hazard-free; only these can win
};

/// What selection needs besides the times.
struct selection_rule {
  double min_gain = 0.02;  ///< a challenger must be at least this much faster (fraction)
  double noise_sigmas = 2; ///< ... and faster by more than this many combined standard errors
};

/// Whether `challenger` is faster than `incumbent` beyond the noise and the minimum gain.
bool clearly_faster(const timed_variant& challenger, const timed_variant& incumbent, const selection_rule& rule);

/// The choice at one token count.
struct choice {
  long long tokens = 0;
  std::string winner;
  std::optional<std::string> runner_up;  ///< the best other qualified variant
  double margin = 0;                     ///< runner-up median / winner median - 1 (0 without one)
  bool incumbent_kept = false;           ///< the incumbent won on the tie band, not on time alone
};

/// Chooses at one token count. The incumbent is `previous` if given and qualified here, else
/// `reference`; the fastest qualified challenger replaces it only if clearly_faster. Returns
/// nothing when no variant is qualified.
std::optional<choice> choose(long long tokens, const std::vector<timed_variant>& timed, const std::string& reference,
                             const std::optional<std::string>& previous, const selection_rule& rule);

/// A run of adjacent token counts with the same winner.
struct range {
  long long min_tokens = 0, max_tokens = 0;
  std::string winner;
  std::optional<std::string> runner_up;  ///< the most frequent runner-up in the range
  double margin = 0;                     ///< the median of the per-count margins
  bool incumbent_kept = false;           ///< true if it was kept on the tie band at any count
  std::vector<long long> tokens;         ///< the measured token counts it covers
};

/// Merges choices (ascending token counts) into ranges.
std::vector<range> merge(const std::vector<choice>& choices);

}  // namespace kk3::select
