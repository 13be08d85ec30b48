#pragma once
// The kernels the measurement engine launches around a variant (kernels/timing/helpers.cuh).
#include <filesystem>
#include <string>

#include "device/handles.hpp"
#include "jit/batch.hpp"

namespace kk3::timing {

/// Compiles (through the cache) and loads the helper kernels for one arch.
class helper_kernels {
 public:
  helper_kernels(const jit::jit_engine& engine, const std::string& arch,
                 const std::filesystem::path& kernel_dir);

  CUfunction gate() const { return m_gate; }              ///< spins until a host flag is set
  CUfunction clock_probe() const { return m_clock; }      ///< SM cycles against globaltimer
  CUfunction l2_flush() const { return m_flush; }         ///< reads a buffer larger than L2
  CUfunction producer() const { return m_producer; }      ///< fixed-duration upstream kernel
  CUfunction consumer() const { return m_consumer; }      ///< downstream kernel that waits
  CUfunction self_timed() const { return m_self_timed; }  ///< spins and reports its own duration
  CUfunction delayed_producer() const {
    return m_producer_delayed;
  }  ///< the PDL hazard check's upstream
  CUfunction first_difference() const {
    return m_first_difference;
  }                                             ///< where two buffers first differ
  CUfunction empty() const { return m_empty; }  ///< does nothing: the cost of a launch

 private:
  device::module m_module;
  CUfunction m_gate, m_clock, m_flush, m_producer, m_consumer, m_self_timed, m_producer_delayed,
      m_first_difference, m_empty;
};

}  // namespace kk3::timing
