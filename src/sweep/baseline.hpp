#pragma once
// sweep --baseline FILE (SPEC 2, "Selection"): a committed sweep's choices become the incumbents,
// so a re-sweep of an unchanged build rewrites no table unless a challenger wins clearly.
#include <filesystem>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// Reads the dispatch tables of a timed sweep result. Throws error(io) when it cannot be read,
/// error(input) naming --baseline and the file when it is not a timed sweep or not valid.
baseline_tables load_baseline(const std::filesystem::path& file);

}  // namespace kk3::sweep
