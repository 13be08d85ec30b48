#pragma once
// Reading any result file kk3tune writes into the one model (results/result_set.hpp). One
// reader, read three ways: `all` (compare, report) reads every record and takes what is
// there; `tables` (emit, sweep --baseline, whose input becomes code or a selection) requires
// every field the dispatch tables need, as the format gives it, and every record's type;
// `whole` (merge, whose output is a sweep file again) requires every record's fields too.
// Older schemas (1, 2) are upgraded to the model as they are read (json_fields.hpp: the shape;
// the objective: graph).
#include <filesystem>

#include "results/result_set.hpp"

namespace kk3::results {

enum class reading {
  all,     ///< lenient: every record; an integer field holding a fraction is rounded
  tables,  ///< strict: the context, families and dispatch tables a sweep's tables need, and
           ///< records of the right types (a mistyped field is an input error in every reader)
  whole,   ///< strict, every record in full: a sweep that is written again (merge)
};

/// Reads a result file. Throws error(io) if it cannot be read, error(input) naming the file and
/// the JSON path if it is not valid JSON, has a schema_version this kk3tune does not read
/// (json_parse.hpp), a missing or mistyped field, or (reading::all) an unknown kind. Also reads
/// the first layout of `time --json` (one measurement at the top level, its variant in the
/// subject). With reading::tables, a valid JSON document of another kind (or with no "kind") and
/// an untimed sweep (no GPU: no tables) come back with `not_a_sweep` saying so.
/// The format: results/schema/kk3tune-result.schema.json.
[[nodiscard]] result_set read_result_set(const std::filesystem::path& file,
                                         reading how = reading::all);

}  // namespace kk3::results
