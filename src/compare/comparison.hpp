#pragma once
// `kk3tune compare`: two result files of one kind, record by record. Records are matched by
// family, mode, shape (tokens, heads, blocks) and variant; each pair timed in both files gets a
// verdict (timing_verdict.hpp); sweeps are also checked for verification regressions and
// dispatch changes. A slower record or a verification regression is a regression (exit 1).
// Pure logic over result_sets: the output formats are comparison_text.hpp and
// comparison_json.hpp.
#include <optional>
#include <string>
#include <vector>

#include "compare/timing_verdict.hpp"
#include "results/reader.hpp"

namespace kk3::compare {

/// What a comparison is asked to do.
struct compare_options {
  verdict_thresholds timing;
  bool allow_device_mismatch = false;  ///< compare files measured on different GPUs anyway
};

/// One side of the comparison, for the header of the output.
struct file_summary {
  std::string file, kind;
  std::string gpu_name;  ///< empty for an untimed sweep (no GPU)
  std::string gpu_arch, tool_version, git_revision, utc_time;
  std::size_t records = 0, timed_records = 0;
  bool timed = true;  ///< false for a sweep run without a GPU
  double copy_ceiling_tb_s = 0,
         empty_kernel_us = 0;  ///< the machine's figures (0: not in the file)
};

/// Which record: family, mode, shape and variant.
struct record_id {
  std::string key;  ///< results::record::key()
  std::string family, mode, variant;
  long long tokens = 0;
  results::dims shape_dims;  ///< the family's key dimensions
  /// "T64 H=16", "T64 NB=4": the shape as the tables show it.
  std::string shape() const;
};

/// A record present in both files.
struct record_comparison {
  record_id id;
  results::status base_status = results::status::ok, new_status = results::status::ok;
  std::optional<timing_comparison> timing;  ///< nothing when it is not timed in both files
  std::string not_comparable;  ///< timed in both under different objectives: how they differ
};

/// A record whose verification got worse: fine in BASE, failing in NEW.
struct verification_regression {
  record_id id;
  results::status base_status = results::status::ok;  ///< e.g. ok
  /// mismatch, pdl_hazard, launch_failed, timeout, compile_failed or unlaunchable (it ran at
  /// that shape in BASE)
  results::status new_status = results::status::mismatch;
  std::string detail;  ///< NEW's first mismatch or reason, when it gives one
};

/// A record present in one file only.
struct one_sided_record {
  record_id id;
  results::status status = results::status::ok;
};

/// A dispatch range that differs: its tokens, the winner in NEW and what BASE had there.
struct dispatch_change {
  std::string entry;          ///< "mla_decode_epilogue/bf16/H16", "attn_res/common_nb4/NB4"
  std::string tokens;         ///< "T1-16" (NEW's range; BASE's for a range NEW no longer covers)
  std::string base;           ///< BASE's ranges over those tokens: "T1-16 split3-...", or "(none)"
  std::string next;           ///< NEW's winner there, or "(none)"
  long long first_token = 0;  ///< where the tokens start, for ordering
};

/// What ships at one token count of one dispatch table (sweeps): BASE's winner there against
/// NEW's, each timed by its own file's final round.
enum class count_verdict {
  same,     ///< within the threshold or the noise
  faster,   ///< NEW's winner is faster beyond the threshold and the noise
  slower,   ///< NEW's winner is slower beyond the threshold and the noise: a regression
  lost,     ///< BASE had a winner, NEW swept the table and has none here: a regression
  gained,   ///< NEW has a winner where BASE had none
  untimed,  ///< a winner without a timed record on one side (a dispatch-only file)
};
const char* to_string(count_verdict v);

struct count_comparison {
  std::string table;  ///< "attn_res/common_nb8/NB=8", as dispatch_change::entry
  std::string family, mode;
  results::dims shape;
  long long tokens = 0;
  std::string base_winner, new_winner;           ///< empty where that file has no winner
  double base_median_us = 0, new_median_us = 0;  ///< the winners' medians (0: not timed)
  double effect = 0;                             ///< new / base - 1
  double sigmas = 0;  ///< the change in combined standard errors (each at least the noise floor)
  count_verdict result = count_verdict::same;
  bool winner_changed() const { return base_winner != new_winner; }
};

/// The rule a count's change must pass to be faster or slower: the threshold, and the plans'
/// noise (sigmas, and the floor of each median's relative standard error, as in the sweep).
struct shipped_rule {
  double threshold = 0.05;
  double noise_sigmas = 2;
  double noise_floor = 0;
};

/// Whether BASE and NEW were timed on machines alike: their figures (the empty-kernel launch, the
/// copy ceiling) within the noise floor of each other. Two H200s of one model can differ: one
/// launched an empty kernel in 0.662 us against the baseline machine's 0.627 (+5.5%), and the
/// same build was 6-10% slower there at every launch-bound count (T = 1, 16), a "regression" of
/// the machine (results/h200/ci-regression-2026-12-03). A verdict across machines that differ
/// holds only once both builds are timed on one machine (ci/gpu-regression.sh does that).
struct machine_check {
  bool known = false;   ///< both files carry at least one of the figures
  bool differ = false;  ///< a figure moved by more than the floor
  std::optional<double> empty_kernel_change,
      copy_ceiling_change;  ///< NEW / BASE - 1, where both files have it
  double floor = 0;         ///< the noise floor the figures are held to
};

/// How many counts of each.
struct shipped_counts {
  std::size_t compared = 0, same = 0, faster = 0, slower = 0, lost = 0, gained = 0, untimed = 0;
  std::size_t winners_changed = 0;
  std::size_t only_in_base = 0, only_in_new = 0;  ///< counts one plan swept and the other did not
};

/// How many of each.
struct comparison_counts {
  std::size_t matched = 0, slower = 0, faster = 0, noisy = 0, same = 0;
  std::size_t untimed = 0;  ///< matched but not timed in both files
  std::size_t not_comparable =
      0;  ///< timed in both, under different objectives (SPEC 2): no verdict
  std::size_t verification_regressions = 0;
  std::size_t dispatch_entries_changed = 0;  ///< family x mode x shape tables that differ
  std::size_t only_in_base = 0, only_in_new = 0;
};

/// Everything `compare` reports.
struct comparison {
  file_summary base, next;
  compare_options options;
  /// Every matched record: slower (worst first), faster (largest gain first), noisy (largest
  /// change first), same, then not timed in both; equal changes (to 0.01%) and the other groups
  /// by family, mode, shape, tokens, variant.
  std::vector<record_comparison> records;
  std::vector<verification_regression> verification;
  std::vector<dispatch_change> dispatch;  ///< by table, then tokens
  std::vector<one_sided_record> only_in_base, only_in_new;
  std::vector<std::string> notes;  ///< things worth knowing that change no verdict
  /// Notes about the record-by-record listing (screening rounds, objectives): shown with it.
  std::vector<std::string> record_notes;
  comparison_counts counts;
  /// Sweeps: the verdict is on what ships, count by count, and on verification; the records
  /// are detail (listed with --all). Time results: the verdict is on the records.
  bool shipped_verdict = false;
  shipped_rule rule;
  std::vector<count_comparison> shipped;  ///< by table, then tokens
  shipped_counts shipped_totals;
  machine_check machine;

  bool regression() const {
    if (counts.verification_regressions > 0) return true;
    return shipped_verdict ? shipped_totals.slower > 0 || shipped_totals.lost > 0
                           : counts.slower > 0;
  }
  /// 1 on a regression, else 0.
  int exit_code() const;
  /// One line: the counts and the outcome, e.g. "32 matched: 1 slower, ... -> REGRESSION".
  std::string summary_line() const;
  /// The record counts alone (what summary_line gives for time results).
  std::string records_line() const;
};

/// Compares NEW (`next`) with BASE; for two sweeps also what ships at each token count, under
/// options.timing.threshold and the plans' noise (the larger sigmas and floor of the two; the
/// sweep's defaults for a plan that gives none). Throws error(input) when the kinds differ, or when
/// the GPUs differ and options.allow_device_mismatch is not set.
comparison compare_documents(const results::result_set& base, const results::result_set& next,
                             const compare_options& options);

}  // namespace kk3::compare
