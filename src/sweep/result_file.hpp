#pragma once
// What a sweep produced, as the one result model (results/result_set.hpp) that
// results/sweep_file.hpp writes as the sweep result file.
#include "results/result_set.hpp"
#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// The result set of a sweep: each record's throughput against the run's copy ceiling, each
/// range's winner's knobs, each table's baseline block.
[[nodiscard]] results::result_set result_set_of(const sweep_result& result);

/// The sweep's result file (results::sweep_file_text of result_set_of).
[[nodiscard]] std::string sweep_json(const sweep_result& result);

}  // namespace kk3::sweep
