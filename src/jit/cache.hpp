#pragma once
// The on-disk cache of compiled images: <dir>/<key[0:2]>/<key>.{cubin,log,meta}.
#include <filesystem>
#include <optional>
#include <string>

#include "jit/compile_types.hpp"

namespace kk3::jit {

/// A folder of compiled images keyed by cache_key(). Entries are written atomically (the
/// .meta file last), so a reader sees a whole entry or none; a damaged entry reads as a miss.
class kernel_cache {
 public:
  /// Creates the folder if needed; throws error(io) naming it when that fails.
  explicit kernel_cache(std::filesystem::path dir);

  /// The cached result for a key, marked as a cache hit; nothing on a miss.
  std::optional<compile_result> load(const std::string& key) const;
  /// Stores a successful result under its key; failures are not cached.
  void store(const compile_result& result) const;

  const std::filesystem::path& dir() const { return m_dir; }

 private:
  std::filesystem::path entry(const std::string& key, const char* extension) const;
  std::filesystem::path m_dir;
};

}  // namespace kk3::jit
