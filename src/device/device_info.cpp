#include "device/device_info.hpp"

#include <cstdio>

#include "core/arch.hpp"
#include "core/error.hpp"
#include "device/check.hpp"

namespace kk3::device {

int device_count() {
  int count = 0;
  KK3_CU(cuDeviceGetCount, &count);
  return count;
}

std::string version_string(int cuda_version) {
  return std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
}

namespace {
bool major_minor(const std::string& text, int& major, int& minor) {
  return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2;
}
}  // namespace

int parse_version_string(const std::string& text) {
  int major = 0, minor = 0;
  return major_minor(text, major, minor) ? major * 1000 + minor * 10 : 0;
}

std::string compute_capability_text(const device_info& d) {
  return std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
}

bool parse_compute_capability(const std::string& text, device_info& d) {
  int major = 0, minor = 0;
  if (!major_minor(text, major, minor)) return false;
  d.cc_major = major;
  d.cc_minor = minor;
  return true;
}

namespace {
int g_selected_gpu = 0;
}  // namespace

void select_gpu(int ordinal) {
  g_selected_gpu = ordinal;
}
int selected_gpu() {
  return g_selected_gpu;
}

device_info first_gpu() {
  (void)driver();  // throws error(device) with the reason when there is no driver
  const int count = device_count();
  if (count == 0) throw error(error_kind::device, "the driver sees no GPU");
  if (g_selected_gpu >= count) {
    throw error(error_kind::usage, "--device " + std::to_string(g_selected_gpu) +
                                       ": the driver sees " + std::to_string(count) +
                                       " GPU(s), numbered 0 to " + std::to_string(count - 1));
  }
  return query_device(g_selected_gpu);
}

device_info query_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw error(error_kind::device, "GPU " + std::to_string(ordinal) +
                                        " does not exist (the driver sees " +
                                        std::to_string(count) + ")");
  }
  CUdevice dev = 0;
  KK3_CU(cuDeviceGet, &dev, ordinal);
  device_info info;
  info.ordinal = ordinal;
  char name[256] = {};
  KK3_CU(cuDeviceGetName, name, sizeof name, dev);
  info.name = name;
  char bus[64] = {};
  KK3_CU(cuDeviceGetPCIBusId, bus, sizeof bus, dev);
  info.pci_bus_id = bus;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    KK3_CU(cuDeviceGetAttribute, &v, a, dev);
    return v;
  };
  info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.arch = arch_for_compute_capability(info.cc_major, info.cc_minor);
  info.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.max_sm_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  info.max_memory_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
  info.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info.shared_per_block_optin_bytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  std::size_t total = 0;
  KK3_CU(cuDeviceTotalMem, &total, dev);
  info.memory_bytes = static_cast<long long>(total);
  info.driver_version = driver().driver_version;
  info.clocks = read_clocks(info.pci_bus_id);
  return info;
}

}  // namespace kk3::device
