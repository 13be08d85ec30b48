#pragma once
// Move-only owners of driver handles: primary context, module, stream, event, graph,
// executable graph and device buffer. Destructors never throw; they ignore a failing release
// (the context may already be poisoned by a faulting kernel).
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "device/driver_api.hpp"

namespace kk3::device {

/// A move-only owner of one driver handle; `Release` frees it.
template <class Handle, void (*Release)(Handle)>
class unique_handle {
 public:
  unique_handle() = default;
  explicit unique_handle(Handle h) : m_handle(h) {}
  ~unique_handle() { reset(); }
  unique_handle(unique_handle&& other) noexcept
      : m_handle(std::exchange(other.m_handle, Handle{})) {}
  unique_handle& operator=(unique_handle&& other) noexcept {
    if (this != &other) {
      reset();
      m_handle = std::exchange(other.m_handle, Handle{});
    }
    return *this;
  }
  unique_handle(const unique_handle&) = delete;
  unique_handle& operator=(const unique_handle&) = delete;

  Handle get() const { return m_handle; }
  explicit operator bool() const { return m_handle != Handle{}; }
  void reset() {
    if (m_handle != Handle{}) Release(m_handle);
    m_handle = Handle{};
  }

 private:
  Handle m_handle{};
};

void release_module(CUmodule m);
void release_stream(CUstream s);
void release_event(CUevent e);
void release_graph(CUgraph g);
void release_graph_exec(CUgraphExec g);
void release_memory(CUdeviceptr p);

/// The primary context of one GPU, retained and made current for this thread.
class context {
 public:
  explicit context(int ordinal = 0);
  ~context();
  context(context&& other) noexcept;
  context& operator=(context&&) = delete;
  context(const context&) = delete;
  context& operator=(const context&) = delete;

  /// Makes this context current on the calling thread (worker threads need it).
  void make_current() const;
  /// Waits for all work; throws error(launch) if a kernel faulted.
  void synchronize() const;
  int ordinal() const { return m_ordinal; }
  CUdevice device() const { return m_device; }

 private:
  int m_ordinal = -1;
  CUdevice m_device = 0;
  CUcontext m_context = nullptr;
};

/// A loaded cubin.
class module {
 public:
  /// Loads a compiled image; throws error(device) naming `label` on failure.
  module(std::string_view cubin, const std::string& label);
  /// The kernel with this (lowered) name; throws error(device) if it is not there.
  CUfunction function(const std::string& lowered_name) const;

 private:
  unique_handle<CUmodule, release_module> m_module;
  std::string m_label;
};

/// A non-blocking stream.
class stream {
 public:
  stream();
  CUstream get() const { return m_stream.get(); }
  void synchronize() const;

 private:
  unique_handle<CUstream, release_stream> m_stream;
};

/// A timing event (or, with timing == false, a cheaper sync-only event).
class event {
 public:
  explicit event(bool timing = true);
  CUevent get() const { return m_event.get(); }
  void record(CUstream s) const;
  void synchronize() const;
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const event& start) const;

 private:
  unique_handle<CUevent, release_event> m_event;
};

/// The work a stream captured, instantiated for replay.
class graph_exec {
 public:
  /// Ends the capture on `s` and instantiates what it captured.
  static graph_exec end_capture(CUstream s);
  void launch(CUstream s) const;
  CUgraphExec get() const { return m_exec.get(); }

 private:
  unique_handle<CUgraph, release_graph> m_graph;
  unique_handle<CUgraphExec, release_graph_exec> m_exec;
};

/// Starts capturing everything launched on `s` (thread-local mode).
void begin_capture(CUstream s);

/// Device memory of a fixed size.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes);
  CUdeviceptr ptr() const { return m_ptr.get(); }
  std::size_t bytes() const { return m_bytes; }
  /// Copies `bytes` host bytes to the start of the buffer; returns when they are on the device.
  void upload(const void* host, std::size_t bytes) const;
  /// Copies `bytes` from the start of the buffer to the host (synchronous).
  void download(void* host, std::size_t bytes) const;
  /// Fills the whole buffer with one byte value, on `s`.
  void fill(unsigned char value, CUstream s) const;
  /// Copies all of `src` (no larger than this buffer) to the start of this one, on `s`.
  void copy_from(const device_buffer& src, CUstream s) const;

 private:
  unique_handle<CUdeviceptr, release_memory> m_ptr;
  std::size_t m_bytes = 0;
};

/// Pinned host memory mapped into the device's address space (the gate's flag).
class mapped_host_buffer {
 public:
  explicit mapped_host_buffer(std::size_t bytes);
  ~mapped_host_buffer();
  mapped_host_buffer(const mapped_host_buffer&) = delete;
  mapped_host_buffer& operator=(const mapped_host_buffer&) = delete;
  void* host() const { return m_host; }
  CUdeviceptr device_ptr() const { return m_device; }

 private:
  void* m_host = nullptr;
  CUdeviceptr m_device = 0;
};

}  // namespace kk3::device
