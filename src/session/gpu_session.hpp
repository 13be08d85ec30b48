#pragma once
// The one place a command that runs kernels sets up the GPU: the first GPU's description and a
// context current on this thread, the JIT engine with its compile cache, and, built on first use,
// the helper kernels, the timer and the verifier. sweep, time, verify and profile take theirs from
// here (compile, which needs no GPU, makes its JIT engine with jit::make_jit_engine alone).
#include <filesystem>
#include <memory>
#include <optional>

#include "device/device_info.hpp"
#include "device/handles.hpp"
#include "jit/batch.hpp"
#include "timing/helper_kernels.hpp"
#include "timing/timer.hpp"
#include "verify/verifier.hpp"

namespace kk3::session {

class gpu_session {
 public:
  /// The selected GPU (error(device) without one) with a context made current, and a JIT engine
  /// over `kernel_dir` caching in `cache_dir` (`no_cache`: read and write no cache).
  gpu_session(std::filesystem::path kernel_dir, const std::filesystem::path& cache_dir,
              bool no_cache);
  gpu_session(const gpu_session&) = delete;
  gpu_session& operator=(const gpu_session&) = delete;

  const device::device_info& info() const { return m_info; }
  const jit::jit_engine& engine() const { return *m_engine; }
  const std::filesystem::path& kernel_dir() const { return m_kernel_dir; }
  /// The timing and checking kernels (gate, clock probe, L2 flush, producer, consumer).
  const timing::helper_kernels& helpers();
  const timing::timer& timer();
  const verify::verifier& verifier();

 private:
  device::device_info m_info;
  device::context m_context;
  std::filesystem::path m_kernel_dir;
  std::unique_ptr<jit::jit_engine> m_engine;
  std::optional<timing::helper_kernels> m_helpers;
  std::optional<timing::timer> m_timer;
  std::optional<verify::verifier> m_verifier;
};

}  // namespace kk3::session
