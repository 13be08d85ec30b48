#pragma once
// An untimed sweep's resource report in the result file and the journal (results/model.hpp:
// arch_resources): a compile record's "resources" list, one object per arch, and its
// "grid_ctas" at the plan's token counts. Part of the codec (results/codec.hpp); absent from
// records that have none, so timed files keep their bytes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/json_fields.hpp"
#include "results/model.hpp"

namespace kk3::results {

/// The "resources" list of a compile record.
[[nodiscard]] nlohmann::ordered_json resources_json(const std::vector<arch_resources>& list);

/// The inverse of resources_json, for the "resources" member `v` at `at` (an array).
[[nodiscard]] std::vector<arch_resources> read_resources(const json_fields& f,
                                                         const nlohmann::ordered_json& v,
                                                         const std::string& at);

/// The "grid_ctas" object of a compile record: token count (a decimal string) -> CTAs.
[[nodiscard]] nlohmann::ordered_json grids_json(const std::vector<token_grid>& grids);

/// The inverse of grids_json, for the "grid_ctas" member `v` at `at` (an object).
[[nodiscard]] std::vector<token_grid> read_grids(const json_fields& f,
                                                 const nlohmann::ordered_json& v,
                                                 const std::string& at);

}  // namespace kk3::results
