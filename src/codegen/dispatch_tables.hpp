#pragma once
// From sweep results to dispatch headers: picks per family and table architecture the sweep to
// use, checks it against the family's config, and builds each header's model.
//
// Per family and table architecture (sm_90, sm_100) the latest sweep that has dispatch tables
// for the family wins (context.utc_time; on a tie the smallest content digest), whatever the
// order of the inputs; its tables are used as they are (a mode or shape it lacks falls back to
// the reference variant, not to an older sweep). An architecture without one falls back to the
// reference variant everywhere. The choice comes before the check against the family's config:
// only the chosen sweep must match it, so older sweeps of a family whose knobs or modes changed
// since can stay among the inputs (they are skipped with a note).
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/dispatch_header.hpp"
#include "families/registry.hpp"
#include "report/sweep_reader.hpp"

namespace kk3::codegen {

/// The table architecture of a GPU arch: "sm_90a" and "sm_90" give "sm_90"; "sm_100a" and
/// "sm_100" give "sm_100". Empty for any other.
std::string table_arch(const std::string& gpu_arch);

/// One header to write.
struct emitted_header {
  std::string family;
  std::filesystem::path relative;  ///< kk3tune/dispatch/<family>.h, under the output folder
  std::string text;
  std::string summary;  ///< one line per arch: where its tables came from
};

/// The headers of the given families (the non-example ones, in registry order), from the
/// sweeps. Every sweep is checked first for what does not depend on the configs: throws
/// error(usage) naming the file and the JSON path for an architecture without tables, a family
/// kk3tune does not know, or malformed tables (a second table for a mode and shape, ranges not
/// ascending). Then, per family and table architecture, the sweep chosen is checked against the
/// family's current config: throws error(usage) naming the file and the JSON path for knob
/// names, a shape key, modes, ranges or variants that do not match. Older sweeps of the family
/// and architecture are not checked against it (they may predate a change of the config).
/// Adds a line to `notes` for each sweep that is not used (superseded by a later one, saying
/// also where it does not match the config, or without dispatch tables).
std::vector<emitted_header> build_dispatch_headers(
    const std::vector<families::family_space>& spaces,
    const std::vector<report::sweep_file>& sweeps, std::vector<std::string>& notes);

}  // namespace kk3::codegen
