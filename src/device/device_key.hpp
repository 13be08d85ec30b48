#pragma once
// A device's identity for tables per device (issue 45): the key a table is filed under, and what
// makes two cards the same device. Pure: the key comes from what a sweep records of its GPU, and
// the generated headers apply the same rule at run time (docs/headers.md, "Device keys").
#include <string>
#include <string_view>

#include "device/device_info.hpp"

namespace kk3::device {

/// The device key of a GPU's marketing name, as cudaGetDeviceProperties gives it: blanks trimmed,
/// each run of characters other than ASCII letters and digits one '_', none at either end, letters
/// as given. "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3", "NVIDIA H200 NVL" ->
/// "NVIDIA_H200_NVL", "Tesla V100-SXM2-16GB" -> "Tesla_V100_SXM2_16GB"; "UNKNOWN_GPU" when nothing
/// is left. (vLLM files its tuned configs under the same kind of key: device_name=<key>.json.)
[[nodiscard]] std::string device_key(std::string_view marketing_name);

/// What the tables tell devices apart by: the key, and the figures two cards of one name may
/// still differ in (a cut-down part, another memory size or speed). 0 is "not recorded".
struct device_identity {
  std::string key;
  int sm_count = 0;
  long long memory_bytes = 0;
  int max_memory_clock_mhz = 0;
};

/// The identity of a GPU as a sweep recorded it.
[[nodiscard]] device_identity identity_of(const device_info& gpu);

/// Why two identities are different devices ("SM count 132 against 114", ...): empty when they are
/// the same device. Different keys differ; so do the same key with another SM count, a memory size
/// more than 2% apart, or another peak memory clock (figures one side did not record are not
/// compared).
[[nodiscard]] std::string device_difference(const device_identity& a, const device_identity& b);

}  // namespace kk3::device
