#pragma once
// `sweep --dry-run`: what a sweep of a request would do, without compiling or timing anything.
// The plan's items, each family's and mode's variants and compiles, how many of those the compile
// cache already holds, and estimates of the compile time on this machine and of the GPU time.
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// One family x mode of the plan.
struct preview_mode {
  std::string family, mode;
  std::size_t items = 0;     ///< its model shapes in this run (shard)
  std::size_t variants = 0;  ///< swept (the reference included)
  std::size_t space = 0;     ///< the family's shipped variants a mode (`kk3tune list`)
  std::size_t compiles = 0;  ///< variants x archs
  std::size_t cached = 0;    ///< of those, already in the compile cache
};

/// The whole preview.
struct plan_preview {
  std::vector<std::string> archs;  ///< compiled for
  bool timed = false;              ///< a GPU is there: the sweep would time
  std::size_t items = 0, plan_items = 0, token_counts = 0;
  std::vector<preview_mode> modes;
  /// A family swept over part of its space: "13 of 288 variants a mode: the plan's `variants`
  /// list (the reference with it); why: ..." (its `variants_note`), or "... : --variant".
  std::vector<std::string> subsets;
  std::size_t compiles = 0, cached = 0;
  unsigned compile_threads = 1;
  /// Seconds per compile, per family: its cached compiles' mean, else its own measured rate
  /// (family::default_compile_rate), else the other families' cached mean, else the fallback.
  std::vector<std::pair<std::string, double>> compile_cost_s;
  /// Where those figures come from: one text, or "family, family: text; ..." when they differ.
  std::string compile_cost_source;
  double compile_estimate_s = 0;  ///< the uncached compiles at those costs on compile_threads
  /// The GPU time, from the sweep's own cost model calibrated by a committed H200 sweep of the
  /// default plan; none when there is no such file to calibrate by.
  std::optional<double> gpu_estimate_s;
  std::string gpu_estimate_source;
};

/// Seconds one compile takes on one thread for a family with no rate of its own
/// (family::default_compile_rate) when the cache has no history to learn from: the mean of the
/// default plan's 1704 compiles on a 2-core machine (results/cpu/compile-rates-2026-12-05.txt).
inline constexpr double k_fallback_compile_s = 0.340;

/// Previews `request` for `archs` (timed: the GPU's arch). `reference_sweep`: a committed sweep
/// of the default plan to calibrate the GPU estimate by (absent: no estimate). Throws what
/// make_plan throws for a bad plan.
[[nodiscard]] plan_preview preview_plan(const sweep_request& request,
                                        const std::vector<std::string>& archs, bool timed,
                                        const std::filesystem::path& reference_sweep);

}  // namespace kk3::sweep
