#pragma once
// The one JSON codec of the result model (results/model.hpp): a record, its statistics and its
// verification as the result file and the journal hold them (results/schema: sweep_record), and
// the blocks every result file shares. The journal writes records at full precision, so that a
// resumed sweep selects exactly as an uninterrupted one; the result file rounds times to 0.1 ns
// and fractions to 1e-6 (far below any noise). A status is text only here. The sweep file's
// writer, built on it, is results/sweep_file.hpp.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/context.hpp"
#include "results/dims.hpp"
#include "results/model.hpp"
#include "results/sample_stats.hpp"

namespace kk3::results {

using json = nlohmann::ordered_json;

/// A status as result files, journals and reports spell it ("ok", "compile_failed", ...).
[[nodiscard]] const char* to_text(status s);
/// The status `text` spells; throws error(input) naming it when it spells none.
[[nodiscard]] status status_from_text(const std::string& text);

/// A model shape as result files hold it: {"heads": 16}, the key dimensions in the family's order.
[[nodiscard]] json shape_json(const dims& shape);
/// The "statistics" block of a measurement (microseconds).
[[nodiscard]] json statistics_json(const sample_stats& stats);
/// The "context" block every result file carries.
[[nodiscard]] json context_json(const run_context& context);
/// Knob values as the result file holds them: an object in the config's knob order.
[[nodiscard]] json knobs_json(const knob_values& knobs);

enum class record_precision { full, rounded };

/// The fraction of the copy ceiling a record achieved (0 without a ceiling).
[[nodiscard]] double fraction_of_ceiling(double achieved_tb_s, double ceiling_tb_s);

/// Sets a just-measured record's achieved_tb_s (bytes moved over its median) and its
/// fraction_of_ceiling of `ceiling_tb_s` (0: none), at full precision.
void set_throughput(record& r, double ceiling_tb_s);

/// A record as the result file holds it (its achieved_tb_s and fraction_of_ceiling as they are).
[[nodiscard]] json record_json(const record& r, record_precision precision);
/// The inverse of record_json (the rounded form reads back rounded): the reader's record decoder
/// (results/entries.hpp), strict. Throws error(input) naming the missing or mistyped field, which
/// the caller names the file and line for.
[[nodiscard]] record record_from_json(const json& j);

/// A finalist's verification as the result file holds it (its reason is the record's).
[[nodiscard]] json verification_json(const verification& v);
[[nodiscard]] verification verification_from_json(const json& j, const std::string& reason);

}  // namespace kk3::results
