#pragma once
// Current clocks and throttle reasons from NVML, loaded at run time (libnvidia-ml.so.1).
// Optional: without NVML kk3tune reports the clocks the driver API knows (the maximum).
#include <optional>
#include <string>

namespace kk3::device {

/// Clocks of one GPU now.
struct gpu_clocks {
  int sm_mhz = 0;                        ///< current SM clock
  int memory_mhz = 0;                    ///< current memory clock
  unsigned long long event_reasons = 0;  ///< NVML clock event (throttle) reason bits; 0 = none
};

/// The clocks of the GPU at this PCI bus id ("0000:17:00.0"), or nothing without NVML.
[[nodiscard]] std::optional<gpu_clocks> read_clocks(const std::string& pci_bus_id);

}  // namespace kk3::device
