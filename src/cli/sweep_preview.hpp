#pragma once
// `kk3tune sweep --dry-run`'s output.
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace kk3::cli {

/// Prints what a sweep of `request` would do for `archs` (timed: on the GPU; else why not),
/// without compiling, timing or writing anything. Returns the exit code, 0.
int print_sweep_preview(const sweep::sweep_request& request, const std::vector<std::string>& archs,
                        bool timed, const std::string& why_untimed);

}  // namespace kk3::cli
