#pragma once
// The parts of compare/comparison.cpp that its files share: a table's name, the records of a
// file by key, and the comparison of what ships (compare/shipped.cpp). Internal to src/compare.
#include <cstddef>
#include <string>
#include <unordered_map>

#include "compare/comparison.hpp"

namespace kk3::compare::detail {

/// "family/mode[/shape]": the name of a dispatch table.
std::string entry_of(const results::dispatch_entry& d);

/// Record key -> index of a record in its file.
using record_index = std::unordered_map<std::string, std::size_t>;

/// Each record key's first record in `d`; `repeats` counts the keys seen again.
record_index index_by_key(const results::result_set& d, std::size_t& repeats);

/// Two sweeps by what ships: the winner at each token count of each table, its time in both
/// files and the verdict (c.shipped, c.shipped_totals, c.rule, notes).
void compare_shipped(const results::result_set& base, const results::result_set& next,
                     comparison& c);

}  // namespace kk3::compare::detail
