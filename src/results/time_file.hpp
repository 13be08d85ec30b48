#pragma once
// The time result file (kind "time", `kk3tune time --json`): the model of what one run of the
// time command measured, and its writer. results/reader.hpp reads such a file back into a
// result_set (one record per entry).
#include <string>
#include <vector>

#include "results/context.hpp"
#include "results/dims.hpp"
#include "results/objective.hpp"
#include "results/sample_stats.hpp"

namespace kk3::results {

/// What was measured, beside the measurements themselves.
struct time_subject {
  std::string family, mode;
  long long tokens = 0;
  dims shape;  ///< the family's key dimensions
  unsigned long long seed = 0;
  double copy_ceiling_tb_s = 0;  ///< the bandwidth ceiling the fraction is taken of
  std::string reference;  ///< the family's reference variant (its entry says "reference": true)
  results::objective objective;  ///< what the times stand for (each entry's timing.objective)
};

/// One measured variant: how it was timed, its statistics and its raw samples.
struct time_entry {
  std::string variant;
  timing_mode mode = timing_mode::graph;
  bool pdl = true;
  unsigned launches_per_sample = 1, rotated_workspaces = 1, placements = 1;
  double event_overhead_us = 0;
  std::string stopped;  ///< why sampling stopped ("noise_target", ...)
  double wall_s = 0;
  sample_stats stats;
  double bytes_moved = 0;  ///< per launch
  bool fits_in_l2 = false;
  std::vector<double> samples_us, clock_mhz;
  std::vector<bool> throttled;
  double chain_total_us = 0, chain_base_us = 0;  ///< chain mode: with and without the variant
};

/// The JSON document (pretty-printed, 2-space indent, ends with a newline): the context, the
/// subject, and one entry in "results" per measured variant.
[[nodiscard]] std::string time_text(const run_context& context, const time_subject& subject,
                                    const std::vector<time_entry>& entries);

}  // namespace kk3::results
