#pragma once
// The sweep result file (docs/sweep-result-format.md): kind "sweep", written through the
// codec (results/codec.hpp).
#include <string>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// The JSON document of a sweep (pretty-printed, 2-space indent, ends with a newline).
std::string sweep_json(const sweep_result& result);

}  // namespace kk3::sweep
