#include "jit/batch.hpp"

#include <mutex>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/paths.hpp"
#include "core/thread_pool.hpp"
#include "jit/cache_key.hpp"
#include "jit/toolkit.hpp"

namespace kk3::jit {

std::unique_ptr<jit_engine> make_jit_engine(const std::filesystem::path& kernel_dir,
                                            const std::filesystem::path& cache_dir, bool no_cache,
                                            unsigned jobs) {
  jit_options o;
  o.jobs = jobs;
  o.use_cache = !no_cache;
  o.cache_dir = find_cache_dir(cache_dir).dir;
  return std::make_unique<jit_engine>(nvrtc_compiler(kernel_dir, require_cuda_include_dir().dir),
                                      o);
}

jit_engine::jit_engine(nvrtc_compiler compiler, const jit_options& options)
    : m_compiler(std::move(compiler)), m_jobs(options.jobs), m_nvrtc_version(nvrtc_version()) {
  if (options.use_cache) m_cache.emplace(options.cache_dir);
}

compile_result jit_engine::compile(const compile_request& request) const {
  const nvtx::scoped_range range("compile");
  std::string key;
  try {
    key = cache_key(request, m_compiler.full_options(request), m_compiler.sources(request),
                    m_nvrtc_version);
  } catch (const error& e) {
    compile_result r;
    r.label = request.label;
    r.arch = request.arch;
    r.options = m_compiler.full_options(request);
    r.log = e.what();
    return r;
  }
  if (m_cache) {
    if (auto hit = m_cache->load(key)) {
      hit->label = request.label;
      hit->arch = request.arch;
      hit->options = m_compiler.full_options(request);
      return *std::move(hit);
    }
  }
  compile_result r = m_compiler.compile(request);
  r.key = key;
  if (m_cache && r.ok) {
    try {
      m_cache->store(r);
    } catch (const error&) {
      // An unwritable cache costs speed, not correctness: the result stands.
    }
  }
  return r;
}

std::optional<compile_result> jit_engine::cached(const compile_request& request) const {
  if (!m_cache) return std::nullopt;
  try {
    return m_cache->load(cache_key(request, m_compiler.full_options(request),
                                   m_compiler.sources(request), m_nvrtc_version));
  } catch (const error&) {
    return std::nullopt;
  }
}

std::vector<compile_result> jit_engine::compile_all(
    const std::vector<compile_request>& requests,
    const std::function<void(const compile_result&)>& on_done) const {
  std::vector<compile_result> results(requests.size());
  std::mutex report;
  {
    thread_pool pool(m_jobs);
    std::vector<std::future<void>> done;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      done.push_back(pool.submit([&, i] {
        results[i] = compile(requests[i]);
        if (on_done) {
          std::lock_guard<std::mutex> lock(report);
          on_done(results[i]);
        }
      }));
    }
    for (auto& d : done) d.get();  // rethrows a broken NVRTC
  }
  return results;
}

}  // namespace kk3::jit
