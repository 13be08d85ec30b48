#include "device/nvml.hpp"

#include <dlfcn.h>

namespace kk3::device {
namespace {

// The few NVML declarations we need (no nvml.h in the toolkit): stable C ABI.
using nvml_device = struct nvml_device_st*;
constexpr int k_nvml_success = 0;
constexpr int k_nvml_clock_sm = 1;
constexpr int k_nvml_clock_mem = 2;

struct nvml_api {
  int (*init)() = nullptr;
  int (*get_handle)(const char*, nvml_device*) = nullptr;
  int (*clock_info)(nvml_device, int, unsigned*) = nullptr;
  int (*event_reasons)(nvml_device, unsigned long long*) = nullptr;
  bool ok = false;
};

const nvml_api& nvml() {
  static const nvml_api api = [] {
    nvml_api a;
    void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return a;
    a.init = reinterpret_cast<int (*)()>(::dlsym(lib, "nvmlInit_v2"));
    a.get_handle = reinterpret_cast<int (*)(const char*, nvml_device*)>(
        ::dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    a.clock_info = reinterpret_cast<int (*)(nvml_device, int, unsigned*)>(
        ::dlsym(lib, "nvmlDeviceGetClockInfo"));
    a.event_reasons = reinterpret_cast<int (*)(nvml_device, unsigned long long*)>(
        ::dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    a.ok = a.init && a.get_handle && a.clock_info && a.init() == k_nvml_success;
    return a;
  }();
  return api;
}

}  // namespace

std::optional<gpu_clocks> read_clocks(const std::string& pci_bus_id) {
  const nvml_api& api = nvml();
  if (!api.ok) return std::nullopt;
  nvml_device dev = nullptr;
  if (api.get_handle(pci_bus_id.c_str(), &dev) != k_nvml_success) return std::nullopt;
  gpu_clocks c;
  unsigned mhz = 0;
  if (api.clock_info(dev, k_nvml_clock_sm, &mhz) != k_nvml_success) return std::nullopt;
  c.sm_mhz = static_cast<int>(mhz);
  if (api.clock_info(dev, k_nvml_clock_mem, &mhz) == k_nvml_success)
    c.memory_mhz = static_cast<int>(mhz);
  if (api.event_reasons) api.event_reasons(dev, &c.event_reasons);
  return c;
}

}  // namespace kk3::device
