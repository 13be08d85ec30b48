#pragma once
// The on-disk cache of compiled images: <dir>/<key[0:2]>/<key>.{cubin,log,meta}.
#include <filesystem>
#include <optional>
#include <string>

#include "jit/compile_types.hpp"

namespace kk3::jit {

/// A folder of compiled images keyed by cache_key(). An entry's .meta names its key and the size
/// and XXH3-128 digest of its .cubin and .log; load() checks all of them, so a truncated or
/// swapped image, a damaged or foreign meta, or an entry from before the digests reads as a
/// miss (the caller recompiles and stores over it). Each file is written atomically and the
/// .meta last, under a lock that one store of the folder holds at a time (flock, across
/// processes and threads), so two writers of one key leave one writer's whole entry.
class kernel_cache {
 public:
  /// Creates the folder if needed; throws error(io) naming it when that fails.
  explicit kernel_cache(std::filesystem::path dir);

  /// The cached result for a key, marked as a cache hit; nothing on a miss or a damaged entry.
  [[nodiscard]] std::optional<compile_result> load(const std::string& key) const;
  /// Stores a successful result under its key; failures are not cached. Throws error(io).
  void store(const compile_result& result) const;

  const std::filesystem::path& dir() const { return m_dir; }

 private:
  std::filesystem::path entry(const std::string& key, const char* extension) const;
  std::filesystem::path m_dir;
};

}  // namespace kk3::jit
