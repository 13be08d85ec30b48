#pragma once
// From sweep results to dispatch headers: checks every input against the family's config,
// combines their tables and builds each header's model.
//
// A table is (family, table architecture sm_90/sm_100, mode, model shape). The tables of all
// inputs are combined, whatever their order (the shards of a sweep, or sweeps of different
// families or modes, can be given together); two inputs that give the same table are refused,
// since which one is meant cannot be guessed: the caller passes exactly the files wanted. A
// mode, shape or architecture no input has a table for falls back to the reference variant.
// Every input with tables for a family must match the family's current config.
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/dispatch_header.hpp"
#include "families/registry.hpp"
#include "results/reader.hpp"

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
  bool tabled = false;  ///< it has a table from a sweep (else select() gives the reference)
};

/// The headers of the given families (the non-example ones, in registry order), from the
/// sweeps. Every sweep is checked first for what does not depend on the configs: throws
/// error(usage) naming the file and the JSON path for an architecture without tables, a family
/// kk3tune does not know, or malformed tables (a second table for a mode and shape, ranges not
/// ascending). Then every sweep with tables for a family is checked against the family's current
/// config: a sweep whose knob names, shape key, modes, ranges or variants do not match it gives
/// no table of that family (a line in `notes` names the file, the JSON path and why); its other
/// families' tables are used. Throws error(usage) naming the table and both files when two
/// sweeps give the same table. Adds a line to `notes` for each sweep without dispatch tables
/// (not used).
std::vector<emitted_header> build_dispatch_headers(
    const std::vector<families::family_space>& spaces,
    const std::vector<results::result_set>& sweeps, std::vector<std::string>& notes);

}  // namespace kk3::codegen
