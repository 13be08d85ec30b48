#pragma once
// What ships, for a sweep without a GPU: the committed sweep's dispatch tables (those the
// committed headers are emitted from, tests/package/committed_headers.sh), read as emit reads
// them, mark each compile record's arch with the ranges where they choose its variant
// (results/model.hpp: arch_resources::ships), and the plan with where they come from and which
// archs they cover (results/result_set.hpp: shipped_tables).
#include <filesystem>
#include <string>

#include "results/result_set.hpp"

namespace kk3::sweep {

/// Marks the untimed sweep `untimed` by the tables of `committed` (a timed sweep, read at least
/// for its tables): plan.shipped, and the ships of each record's arch that has the same table
/// arch as the committed sweep (codegen::table_arch), from its table of the record's family,
/// mode and model shape.
void mark_shipped(const results::result_set& committed, results::result_set& untimed);

/// The same, from the file `committed` (empty: none was found; nothing is marked). Returns why
/// nothing was marked when the file cannot be read as a timed sweep, for the summary; else empty.
[[nodiscard]] std::string mark_shipped(const std::filesystem::path& committed,
                                       results::result_set& untimed);

}  // namespace kk3::sweep
