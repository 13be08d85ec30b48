#pragma once
// Finds a kernel source and every file it includes, so a cache key can hash them all.
#include <filesystem>
#include <string>
#include <vector>

namespace kk3::jit {

/// One file that takes part in a compile.
struct source_file {
  std::string name;      ///< as written in the #include (the main source: its file name)
  std::string contents;  ///< empty for an include that was not found on disk
  bool found = true;     ///< false for an include resolved by NVRTC's built-in headers, if any
};

/// The source and, depth first, every file it includes, each once. Quoted includes are
/// looked up beside the including file, then in `search_dirs`; angle includes in
/// `search_dirs`. The scan ignores #if: it may take in more files than the compile reads,
/// never fewer, so a key can only be too specific.
[[nodiscard]] std::vector<source_file> scan_includes(
    const std::filesystem::path& source, const std::vector<std::filesystem::path>& search_dirs);

}  // namespace kk3::jit
