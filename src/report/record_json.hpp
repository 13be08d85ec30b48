#pragma once
// The one JSON codec of a sweep record (sweep::record), used by the result file and by the
// journal alike: the result file's record layout (results/schema: sweep_record). The journal
// writes it at full precision, so that a resumed sweep selects exactly as an uninterrupted one;
// the result file rounds times to 0.1 ns and fractions to 1e-6 (far below any noise).
#include "report/measurement_json.hpp"
#include "sweep/sweep.hpp"

namespace kk3::report {

enum class record_precision { full, rounded };

/// A record as the result file holds it; `ceiling_tb_s` gives fraction_of_ceiling (0: none).
json record_json(const sweep::record& r, record_precision precision, double ceiling_tb_s);
/// The inverse of record_json (the rounded form reads back rounded). Throws json exceptions
/// (missing or mistyped fields) that the caller names the file and line or pointer for.
sweep::record record_from_json(const json& j);

/// Knob values as the result file holds them: an object in the config's knob order.
json knobs_json(const std::vector<std::pair<std::string, long long>>& knobs);
/// The fraction of the copy ceiling a record achieved, as the result file holds it (to 1e-6;
/// 0 without a ceiling). `merge` recomputes it against the merged ceiling the same way.
double fraction_of_ceiling(double achieved_tb_s, double ceiling_tb_s, record_precision precision = record_precision::rounded);

/// A finalist's verification as the result file holds it (its reason is the record's).
json verification_json(const sweep::verification& v);
sweep::verification verification_from_json(const json& j, const std::string& reason);

}  // namespace kk3::report
