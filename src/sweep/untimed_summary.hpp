#pragma once
// What a sweep without a GPU prints at its end: per arch the compiles that succeeded and failed,
// per family and arch the variants at the register limit and those that spill, with the
// occupancy range on the arch's named GPU; then where to look next: the committed H200 results
// (what a GPU run gives) and the report of this run's resources.
#include <filesystem>
#include <string>
#include <vector>

#include "results/model.hpp"

namespace kk3::sweep {

/// The summary of an untimed sweep's `records` compiled for `archs`, written to `out`;
/// `committed` is the committed H200 sweep to point at (empty: none found).
[[nodiscard]] std::string untimed_summary(const std::vector<results::record>& records,
                                          const std::vector<std::string>& archs,
                                          const std::filesystem::path& out,
                                          const std::filesystem::path& committed);

/// The committed H200 sweep of the repository that holds `config_dir` (its results/h200/...),
/// shown relative to the current folder where it can be; empty when there is none (an install).
[[nodiscard]] std::filesystem::path committed_h200_sweep(const std::filesystem::path& config_dir);

}  // namespace kk3::sweep
