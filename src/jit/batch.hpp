#pragma once
// Compiles many variants in parallel through the on-disk cache.
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "jit/cache.hpp"
#include "jit/compile_types.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace kk3::jit {

/// How the JIT stage runs.
struct jit_options {
  unsigned jobs = 0;                ///< compile threads; 0 = one per hardware thread
  bool use_cache = true;            ///< false: compile everything, read and write no cache
  std::filesystem::path cache_dir;  ///< the cache folder (see find_cache_dir)
};

/// An engine over `kernel_dir` and the CUDA include folder (error(compile) if there is none),
/// with the cache in `cache_dir` (the default folder if empty) unless `no_cache`.
[[nodiscard]] std::unique_ptr<class jit_engine> make_jit_engine(
    const std::filesystem::path& kernel_dir, const std::filesystem::path& cache_dir, bool no_cache,
    unsigned jobs = 0);

/// NVRTC behind the cache: a hit skips NVRTC, a miss compiles and stores.
class jit_engine {
 public:
  jit_engine(nvrtc_compiler compiler, const jit_options& options);

  /// One variant, through the cache. Never throws for a bad variant: the result says why.
  [[nodiscard]] compile_result compile(const compile_request& request) const;
  /// Many variants on a pool of `jobs` threads; results in request order. `on_done` (if set)
  /// is called once per finished result, from the worker threads, one call at a time.
  [[nodiscard]] std::vector<compile_result> compile_all(
      const std::vector<compile_request>& requests,
      const std::function<void(const compile_result&)>& on_done = {}) const;

  /// The cached result of `request`, without compiling: nothing on a miss, with no cache, or
  /// when its sources cannot be read.
  [[nodiscard]] std::optional<compile_result> cached(const compile_request& request) const;

  const nvrtc_compiler& compiler() const { return m_compiler; }
  const kernel_cache* cache() const { return m_cache ? &*m_cache : nullptr; }

 private:
  nvrtc_compiler m_compiler;
  std::optional<kernel_cache> m_cache;
  unsigned m_jobs;
  std::string m_nvrtc_version;
};

}  // namespace kk3::jit
