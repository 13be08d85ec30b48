#include "device/device_key.hpp"

#include <algorithm>
#include <cmath>

namespace kk3::device {
namespace {

bool ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

}  // namespace

std::string device_key(std::string_view marketing_name) {
  std::string key;
  bool gap = false;
  for (const char c : marketing_name) {
    if (!ascii_alnum(c)) {
      gap = !key.empty();  // (none at the start)
      continue;
    }
    if (gap) key += '_';
    gap = false;
    key += c;
  }
  return key.empty() ? "UNKNOWN_GPU" : key;
}

device_identity identity_of(const device_info& gpu) {
  return {device_key(gpu.name), gpu.sm_count, gpu.memory_bytes, gpu.max_memory_clock_mhz};
}

std::string device_difference(const device_identity& a, const device_identity& b) {
  auto against = [](long long x, long long y) {
    return std::to_string(x) + " against " + std::to_string(y);
  };
  if (a.key != b.key) return "device key " + a.key + " against " + b.key;
  if (a.sm_count && b.sm_count && a.sm_count != b.sm_count)
    return "SM count " + against(a.sm_count, b.sm_count);
  if (a.memory_bytes && b.memory_bytes &&
      std::fabs(static_cast<double>(a.memory_bytes - b.memory_bytes)) >
          0.02 * static_cast<double>(std::max(a.memory_bytes, b.memory_bytes)))
    return "memory " + against(a.memory_bytes >> 20, b.memory_bytes >> 20) + " MiB";
  if (a.max_memory_clock_mhz && b.max_memory_clock_mhz &&
      a.max_memory_clock_mhz != b.max_memory_clock_mhz)
    return "peak memory clock " + against(a.max_memory_clock_mhz, b.max_memory_clock_mhz) + " MHz";
  return "";
}

}  // namespace kk3::device
