#pragma once
// What a finished sweep prints: the objective of each family, the table of its dispatch ranges
// (winner, speedup over the reference, runner-up and margin), the changes against a baseline,
// and the closing line with the record counts. Text only; the result file is the record.
#include <filesystem>
#include <ostream>
#include <string>

#include "results/result_set.hpp"

namespace kk3::sweep {

/// ", shard 2/3: 9 of 27 work items" for a sharded run; empty for a whole one.
[[nodiscard]] std::string shard_note(const results::result_set& r);

/// With --baseline: how many token counts changed their variant against it, and each change's
/// gain (nothing without a baseline).
void print_baseline_changes(std::ostream& out, const results::result_set& r);

/// The objectives, the dispatch ranges' table and the baseline's changes.
void print_summary(std::ostream& out, const results::result_set& r);

/// The summary of a measured sweep written to `written`, and its closing line; returns the exit
/// code: 1 when a variant is not ok (unlaunchable ones are no failure: never measured where they
/// cannot run), else 0.
int report_measured(std::ostream& out, const results::result_set& result,
                    const std::filesystem::path& written);

}  // namespace kk3::sweep
