#pragma once
// The writer of a sweep result file (docs/sweep-result-format.md): kind "sweep", from the model
// (results/result_set.hpp). The sweep writes its file through it, and merge writes the merged
// file through it, so one sweep and the merge of its shards have the same bytes; a sweep file
// read whole (results/reader.hpp, reading::whole) and written again keeps its bytes.
#include <string>
#include <vector>

#include "results/codec.hpp"
#include "results/result_set.hpp"

namespace kk3::results {

/// The sweep file of `s` (a sweep with a plan): pretty-printed, records one per line
/// (sweep_text), ends with a newline.
[[nodiscard]] std::string sweep_file_text(const result_set& s);

/// The parts of a sweep file that two shards must agree on, as the file holds them (merge names
/// a difference by them).
[[nodiscard]] json sweep_context_json(const run_context& c);  ///< without a GPU: gpu null
[[nodiscard]] json families_json(const std::vector<family_summary>& families);
[[nodiscard]] json objectives_json(const std::vector<family_summary>& families);
/// The "plan" block (its objective map from `families`).
[[nodiscard]] json plan_json(const plan_block& p, const std::vector<family_summary>& families);

/// The text layout of a sweep result file: `doc` (an object with a "records" array)
/// pretty-printed with a 2-space indent, except "records", which holds one record per line (tens
/// of thousands of records stay readable, diffable and small). Ends with a newline.
[[nodiscard]] std::string sweep_text(const json& doc);

}  // namespace kk3::results
