#pragma once
// The compile cache key: a hash of everything that can change a compiled image.
#include <string>
#include <vector>

#include "jit/compile_types.hpp"
#include "jit/include_scan.hpp"

namespace kk3::jit {

/// Hashes the key format, the NVRTC version, the arch, the name expression, the options and
/// every source file (name and contents). Include-folder paths (-I) are left out, so a tree
/// copied to another folder keeps its cache; their contents are in through `sources`.
[[nodiscard]] std::string cache_key(const compile_request& request,
                                    const std::vector<std::string>& options,
                                    const std::vector<source_file>& sources,
                                    const std::string& nvrtc_version);

}  // namespace kk3::jit
