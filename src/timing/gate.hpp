#pragma once
// The gate of the isolated and cold modes: a kernel that holds the stream until the host has
// enqueued the timed work behind it, so the event interval holds no host launch latency.
#include <atomic>

#include "device/handles.hpp"
#include "device/launch.hpp"
#include "timing/helper_kernels.hpp"

namespace kk3::timing {

/// A stream with an event pair and a gate kernel spinning on a flag in mapped host memory.
class gated_stream {
 public:
  explicit gated_stream(const helper_kernels& helpers)
      : m_helpers(helpers), m_flag(sizeof(unsigned)) {}

  CUstream get() const { return m_stream.get(); }

  /// Launches the gate, records the start event, calls `enqueue` (which launches on get()),
  /// records the end event, opens the gate and waits: the interval in microseconds.
  template <class F>
  double interval_us(F enqueue) {
    return interval_us([] {}, enqueue);
  }

  /// As above, with `before` enqueued behind the gate and ahead of the start event: work that
  /// runs just before the timed work, outside the interval.
  template <class B, class F>
  double interval_us(B before, F enqueue) {
    volatile unsigned* flag = static_cast<volatile unsigned*>(m_flag.host());
    *flag = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CUdeviceptr flag_ptr = m_flag.device_ptr();
    unsigned long long timeout_ns = 1000000000ull;  // a lost flag cannot hang the GPU
    void* args[] = {&flag_ptr, &timeout_ns};
    device::launch_config gate;
    gate.block.x = 32;
    device::launch(m_helpers.gate(), m_stream.get(), gate, args);
    before();
    m_start.record(m_stream.get());
    enqueue();
    m_end.record(m_stream.get());
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *flag = 1;
    m_end.synchronize();
    return m_end.elapsed_ms_since(m_start) * 1e3;
  }

 private:
  const helper_kernels& m_helpers;
  device::stream m_stream;
  device::event m_start, m_end;
  device::mapped_host_buffer m_flag;
};

}  // namespace kk3::timing
