#pragma once
// What a sweep without a GPU prints at its end: per arch the compiles that succeeded and failed,
// per family and arch the variants at the register limit and those that spill, with the
// occupancy and the waves per SM on the arch's named GPU; what the committed dispatch tables ship
// (sweep/shipped_marks.hpp): per family and arch how much, the archs they have no timed sweep for,
// and every shipped variant that spills; then where to look next: the report of this run's
// resources and the committed H200 results (what a GPU run gives).
#include <filesystem>
#include <string>

#include "results/result_set.hpp"

namespace kk3::sweep {

/// The summary of the untimed sweep `result` (marked by sweep/shipped_marks.hpp), written to
/// `out`; `committed` is the committed H200 sweep to point at (empty: none found), `unmarked`
/// why its tables marked nothing (empty: they did, or there was none).
[[nodiscard]] std::string untimed_summary(const results::result_set& result,
                                          const std::filesystem::path& out,
                                          const std::filesystem::path& committed,
                                          const std::string& unmarked = {});

/// The committed H200 sweep of the repository that holds `config_dir` (its results/h200/...),
/// shown relative to the current folder where it can be; empty when there is none (an install).
[[nodiscard]] std::filesystem::path committed_h200_sweep(const std::filesystem::path& config_dir);

}  // namespace kk3::sweep
