#pragma once
// What kk3tune knows about a GPU: for doctor, for choosing the arch, for result context.
#include <optional>
#include <string>

#include "device/nvml.hpp"

namespace kk3::device {

/// Properties of one GPU.
struct device_info {
  int ordinal = 0;
  std::string name;                            ///< e.g. "NVIDIA H200"
  std::string pci_bus_id;                      ///< e.g. "0000:17:00.0"
  int cc_major = 0, cc_minor = 0;              ///< compute capability
  std::string arch;                            ///< what kernels are compiled for, e.g. "sm_90a"
  int sm_count = 0;                            ///< streaming multiprocessors
  long long l2_bytes = 0;                      ///< L2 cache size
  long long memory_bytes = 0;                  ///< global memory size
  int max_sm_clock_mhz = 0;                    ///< the driver's maximum SM clock
  int max_memory_clock_mhz = 0;                ///< the driver's peak memory clock
  int memory_bus_bits = 0;                     ///< memory bus width
  long long shared_per_block_optin_bytes = 0;  ///< the most shared memory (static + dynamic) one
                                               ///< CTA may have, with the function's opt-in
  int driver_version = 0;                      ///< e.g. 13000
  std::optional<gpu_clocks> clocks;            ///< current clocks, when NVML is there
};

/// How many GPUs the driver sees; throws error(device) when there is no driver.
[[nodiscard]] int device_count();
/// Chooses the GPU this process works on (`--device N`; default 0). Checked when first used.
void select_gpu(int ordinal);
/// The ordinal select_gpu chose (0 unless it was called).
int selected_gpu();
/// The GPU this process works on (GPU 0 unless select_gpu chose another); throws error(device)
/// with the reason when there is no driver or no GPU, error(usage) when the chosen one is not
/// there.
[[nodiscard]] device_info first_gpu();
/// Queries one GPU; throws error(device) naming the ordinal.
[[nodiscard]] device_info query_device(int ordinal);
/// "13.0" from 13000.
std::string version_string(int cuda_version);
/// 13000 from "13.0" (version_string's inverse); 0 when `text` is not "X.Y".
[[nodiscard]] int parse_version_string(const std::string& text);
/// "9.0": the compute capability as results and doctor write it.
std::string compute_capability_text(const device_info& d);
/// Sets d.cc_major and d.cc_minor from "9.0" (compute_capability_text's inverse); false, and
/// nothing set, when `text` is not "X.Y".
bool parse_compute_capability(const std::string& text, device_info& d);

}  // namespace kk3::device
