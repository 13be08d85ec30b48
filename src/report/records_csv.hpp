#pragma once
// A result file's records as CSV, one row per record and one column per knob, for pandas and
// spreadsheets (`kk3tune report --csv`, `kk3tune sweep --csv`).
#include <string>

#include "results/reader.hpp"

namespace kk3::report {

/// The header and one row per record: family, mode, each key dimension, tokens, variant,
/// reference, each knob (the union over the records, in first-seen order; empty where a record
/// has none, as in time files), status, verification, the statistics (microseconds), samples,
/// bytes_moved, achieved_tb_s, fraction_of_ceiling (both empty for a record without statistics:
/// never timed), timing, objective, reason. Fields are quoted
/// as RFC 4180 asks; numbers are the shortest text that reads back as the same double.
std::string records_csv(const results::result_set& doc);

}  // namespace kk3::report
