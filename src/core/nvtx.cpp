#include "core/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <string>
#include <unordered_map>

namespace kk3::nvtx {
namespace {

/// The tool's own domain, so Nsight can filter kk3tune's ranges from a library's.
/// Without an attached tool NVTX answers a null handle, which every call accepts.
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("kk3tune");
  return handle;
}

/// Registered strings, one per distinct name. Registering costs the tool a lookup each time,
/// and a registered handle lets it compare names by pointer, so each name is registered once.
class string_registry {
 public:
  /// The handle for `name`, registering it on first use (null when no tool is attached).
  nvtxStringHandle_t get(const std::string& name) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto found = m_handles.find(name);
    if (found != m_handles.end()) return found->second;
    const nvtxStringHandle_t handle = nvtxDomainRegisterStringA(domain(), name.c_str());
    m_handles.emplace(name, handle);
    return handle;
  }

 private:
  std::mutex m_mutex;
  std::unordered_map<std::string, nvtxStringHandle_t> m_handles;
};

string_registry& registry() {
  // Never destroyed: a range opened from a static destructor or a late worker thread still
  // finds the registry alive.
  static string_registry* const instance = new string_registry;
  return *instance;
}

}  // namespace

scoped_range::scoped_range(const std::string& name, long long tokens) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  // The destructor pops unconditionally (the class holds no state), so this constructor must
  // push whatever happens: if registering fails, the range still goes out as a plain string.
  try {
    attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attributes.message.registered = registry().get(name);
  } catch (...) {
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name.c_str();
  }
  if (tokens >= 0) {
    attributes.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attributes.payload.llValue = static_cast<int64_t>(tokens);
  }
  nvtxDomainRangePushEx(domain(), &attributes);
}

scoped_range::~scoped_range() {
  nvtxDomainRangePop(domain());
}

}  // namespace kk3::nvtx
