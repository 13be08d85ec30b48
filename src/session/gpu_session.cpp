#include "session/gpu_session.hpp"

#include <utility>

#include "device/driver_api.hpp"

namespace kk3::session {

gpu_session::gpu_session(std::filesystem::path kernel_dir, const std::filesystem::path& cache_dir,
                         bool no_cache)
    : m_info(device::first_gpu()),
      m_context(device::selected_gpu()),
      m_kernel_dir(std::move(kernel_dir)),
      m_engine(jit::make_jit_engine(m_kernel_dir, cache_dir, no_cache)) {}

const timing::helper_kernels& gpu_session::helpers() {
  if (!m_helpers) m_helpers.emplace(*m_engine, m_info.arch, m_kernel_dir);
  return *m_helpers;
}

const timing::timer& gpu_session::timer() {
  if (!m_timer) m_timer.emplace(m_info, helpers());
  return *m_timer;
}

const verify::verifier& gpu_session::verifier() {
  if (!m_verifier) m_verifier.emplace(m_info, *m_engine, m_kernel_dir, helpers());
  return *m_verifier;
}

}  // namespace kk3::session
