#include "device/handles.hpp"

#include "core/error.hpp"
#include "device/check.hpp"

namespace kk3::device {

void release_module(CUmodule m) {
  driver().cuModuleUnload(m);
}
void release_stream(CUstream s) {
  driver().cuStreamDestroy(s);
}
void release_event(CUevent e) {
  driver().cuEventDestroy(e);
}
void release_graph(CUgraph g) {
  driver().cuGraphDestroy(g);
}
void release_graph_exec(CUgraphExec g) {
  driver().cuGraphExecDestroy(g);
}
void release_memory(CUdeviceptr p) {
  driver().cuMemFree(p);
}

context::context(int ordinal) : m_ordinal(ordinal) {
  KK3_CU(cuDeviceGet, &m_device, ordinal);
  KK3_CU(cuDevicePrimaryCtxRetain, &m_context, m_device);
  make_current();
}

context::~context() {
  if (m_context) driver().cuDevicePrimaryCtxRelease(m_device);
}

context::context(context&& other) noexcept
    : m_ordinal(other.m_ordinal),
      m_device(other.m_device),
      m_context(std::exchange(other.m_context, nullptr)) {}

void context::make_current() const {
  KK3_CU(cuCtxSetCurrent, m_context);
}
void context::synchronize() const {
  KK3_CU(cuCtxSynchronize);
}

module::module(std::string_view cubin, const std::string& label) :m_label(label) {
  CUmodule m = nullptr;
  const CUresult r = driver().cuModuleLoadData(&m, cubin.data());
  if (r != CUDA_SUCCESS) {
    throw error(error_kind::device, label + ": cuModuleLoadData failed: " + describe(r));
  }
  m_module = unique_handle<CUmodule, release_module>(m);
}

CUfunction module::function(const std::string& lowered_name) const {
  CUfunction f = nullptr;
  const CUresult r = driver().cuModuleGetFunction(&f, m_module.get(), lowered_name.c_str());
  if (r != CUDA_SUCCESS) {
    throw error(error_kind::device,
                m_label + ": kernel " + lowered_name + " not found: " + describe(r));
  }
  return f;
}

stream::stream() {
  CUstream s = nullptr;
  KK3_CU(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  m_stream = unique_handle<CUstream, release_stream>(s);
}

void stream::synchronize() const {
  KK3_CU(cuStreamSynchronize, m_stream.get());
}

event::event(bool timing) {
  CUevent e = nullptr;
  KK3_CU(cuEventCreate, &e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  m_event = unique_handle<CUevent, release_event>(e);
}

void event::record(CUstream s) const {
  KK3_CU(cuEventRecord, m_event.get(), s);
}
void event::synchronize() const {
  KK3_CU(cuEventSynchronize, m_event.get());
}

float event::elapsed_ms_since(const event& start) const {
  float ms = 0;
  KK3_CU(cuEventElapsedTime, &ms, start.get(), m_event.get());
  return ms;
}

void begin_capture(CUstream s) {
  KK3_CU(cuStreamBeginCapture, s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}

graph_exec graph_exec::end_capture(CUstream s) {
  graph_exec out;
  CUgraph g = nullptr;
  KK3_CU(cuStreamEndCapture, s, &g);
  out.m_graph = unique_handle<CUgraph, release_graph>(g);
  CUgraphExec exec = nullptr;
  KK3_CU(cuGraphInstantiateWithFlags, &exec, g, 0);
  out.m_exec = unique_handle<CUgraphExec, release_graph_exec>(exec);
  return out;
}

void graph_exec::launch(CUstream s) const {
  KK3_CU(cuGraphLaunch, m_exec.get(), s);
}

device_buffer::device_buffer(std::size_t bytes) : m_bytes(bytes) {
  CUdeviceptr p = 0;
  KK3_CU(cuMemAlloc, &p, bytes == 0 ? 1 : bytes);
  m_ptr = unique_handle<CUdeviceptr, release_memory>(p);
}

void device_buffer::upload(const void* host, std::size_t bytes) const {
  if (bytes > m_bytes)
    throw error(error_kind::device, "upload of " + std::to_string(bytes) +
                                        " bytes into a buffer of " + std::to_string(m_bytes));
  KK3_CU(cuMemcpyHtoD, m_ptr.get(), host, bytes);
  // From pageable memory cuMemcpyHtoD may return before the DMA lands, and it is ordered only
  // on the legacy stream, which kk3tune's non-blocking streams do not wait for: without this,
  // a kernel can read a half-uploaded input (the verifier caught exactly that).
  KK3_CU(cuCtxSynchronize);
}

void device_buffer::download(void* host, std::size_t bytes) const {
  if (bytes > m_bytes)
    throw error(error_kind::device, "download of " + std::to_string(bytes) +
                                        " bytes from a buffer of " + std::to_string(m_bytes));
  KK3_CU(cuMemcpyDtoH, host, m_ptr.get(), bytes);
}

void device_buffer::fill(unsigned char value, CUstream s) const {
  KK3_CU(cuMemsetD8Async, m_ptr.get(), value, m_bytes, s);
}

void device_buffer::copy_from(const device_buffer& src, CUstream s) const {
  if (src.m_bytes > m_bytes)
    throw error(error_kind::device, "copy of " + std::to_string(src.m_bytes) +
                                        " bytes into a buffer of " + std::to_string(m_bytes));
  KK3_CU(cuMemcpyAsync, m_ptr.get(), src.m_ptr.get(), src.m_bytes, s);
}

mapped_host_buffer::mapped_host_buffer(std::size_t bytes) {
  KK3_CU(cuMemHostAlloc, &m_host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  KK3_CU(cuMemHostGetDevicePointer, &m_device, m_host, 0);
}

mapped_host_buffer::~mapped_host_buffer() {
  if (m_host) driver().cuMemFreeHost(m_host);
}

}  // namespace kk3::device
