#pragma once
// Capturing the context of a result (results/context.hpp) now: the GPU's clocks, the toolchain,
// the time.
#include <string>
#include <vector>

#include "device/device_info.hpp"
#include "results/context.hpp"

namespace kk3::timing {

/// Captures the context now (clocks read through NVML when present).
[[nodiscard]] results::run_context capture_context(const device::device_info& gpu,
                                                   const std::vector<std::string>& argv);

/// "2026-11-29T08:30:00Z"
[[nodiscard]] std::string utc_now_iso8601();

}  // namespace kk3::timing
