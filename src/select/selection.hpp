#pragma once
// Selection (SPEC 2, "Selection"): per token count the fastest qualified variant, with a tie
// band that keeps the incumbent in place unless a challenger is faster beyond the measured noise
// and a minimum gain; adjacent token counts with the same winner merge into ranges.
// Pure logic over measured medians: no GPU, no JSON.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kk3::select {

/// A plan's selection.noise_floor unless it gives one: the run-to-run spread of a variant's
/// final-round median measured on the H200 between two default sweeps on two machines
/// (results/h200/objective-2026-12-01: 1.4% for mla_decode_epilogue at T <= 64, the largest).
inline constexpr double k_default_noise_floor = 0.015;

/// One variant's final-round time at one token count.
struct timed_variant {
  std::string variant;
  double median_us = 0;
  double rel_stderr = 0;   ///< relative standard error of the median (0.004 = 0.4%)
  bool qualified = false;  ///< verified and hazard-free; only these can win
  std::size_t order = 0;   ///< the variant's place in the family's knob order (the last tie-break)
};

/// What selection needs besides the times.
struct selection_rule {
  double min_gain = 0.02;   ///< a challenger must be at least this much faster (fraction)
  double noise_sigmas = 2;  ///< ... and faster by more than this many combined standard errors
  /// The least relative standard error a median is taken to have when a challenger must beat
  /// the baseline's choice (sweep --baseline): the spread of a variant's median from one run
  /// (machine, process) to the next, which one run's samples cannot show
  /// (bench/run_to_run_noise.py, in git at 4aa6637; bench/process_spread.sh, at e399f52). A
  /// committed choice is replaced only beyond it; among variants of this run alone (the previous
  /// count's choice, the reference, the tie band) the samples' own errors decide, so the table
  /// stays within the minimum gain of the fastest. 0: the samples' own everywhere.
  double noise_floor = 0;
};

/// The standard error of a timed variant's median under `rule`, microseconds.
double standard_error(const timed_variant& t, const selection_rule& rule);

/// Whether `challenger` is faster than `incumbent` beyond the noise and the minimum gain.
[[nodiscard]] bool clearly_faster(const timed_variant& challenger, const timed_variant& incumbent,
                                  const selection_rule& rule);

/// Who holds a count before it is measured, and who is preferred among equals.
struct incumbency {
  std::optional<std::string>
      baseline;  ///< the baseline sweep's choice at this count (sweep --baseline)
  std::optional<std::string> previous;  ///< the choice at the neighbouring (previous) count
  std::string reference;                ///< the family's reference variant
};

/// The choice at one token count.
struct choice {
  long long tokens = 0;
  std::string winner;
  std::optional<std::string> runner_up;  ///< the best other qualified variant
  double margin = 0;                     ///< runner-up median / winner median - 1 (0 without one)
  bool incumbent_kept = false;           ///< the incumbent won on the tie band, not on time alone
  std::optional<std::string> baseline;   ///< the baseline's choice here, when there is a baseline
  bool baseline_qualified = false;  ///< ... and it was measured and qualified here (the incumbent)
  /// When the winner replaced a qualified incumbent: incumbent median / winner median - 1, and
  /// that gain in combined standard errors of the two medians.
  double gain = 0, gain_sigmas = 0;
};

/// Chooses at one token count (SPEC 2, "Selection"). The incumbent is the first qualified of
/// baseline, previous and reference. It keeps the count unless the fastest qualified variant is
/// clearly_faster (with the noise floor when the incumbent is the baseline's choice); then the
/// winner is, among the variants clearly faster than the incumbent and not clearly slower than
/// the fastest (the tie band, on the samples' own errors), the first of: previous, then knob
/// order, so that noise among equals never decides. Returns nothing when no variant is qualified.
[[nodiscard]] std::optional<choice> choose(long long tokens,
                                           const std::vector<timed_variant>& timed,
                                           const incumbency& who, const selection_rule& rule);

/// A run of adjacent token counts with the same winner.
struct range {
  long long min_tokens = 0, max_tokens = 0;
  std::string winner;
  std::optional<std::string> runner_up;  ///< the most frequent runner-up in the range
  double margin = 0;                     ///< the median of the per-count margins
  bool incumbent_kept = false;           ///< true if it was kept on the tie band at any count
  std::vector<long long> tokens;         ///< the measured token counts it covers
  /// The winner's knobs, in the config's order (the sweep's result set takes them from its
  /// records; a result file holds them)
  std::vector<std::pair<std::string, long long>> knobs;
};

/// Merges choices (ascending token counts) into ranges.
[[nodiscard]] std::vector<range> merge(const std::vector<choice>& choices);

}  // namespace kk3::select
