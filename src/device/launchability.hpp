#pragma once
// Whether the device can launch a kernel with a given configuration, asked before launching:
// a variant whose CTAs need more threads, shared memory or cluster room than the device has is
// recorded as unlaunchable with the limit it exceeds, instead of failing in cuLaunchKernelEx.
#include <string>

#include "device/device_info.hpp"
#include "device/launch.hpp"

namespace kk3::device {

/// Why the device described by `info` cannot launch `fn` with `config`, or "" when it can. The
/// grid is not looked at (only one cluster or one CTA has to fit). Checks, in order: threads
/// per CTA against the function's limit (which its registers lower), static plus dynamic
/// shared memory against the device's opt-in maximum per CTA, at most 16 CTAs per cluster,
/// then whether one cluster (cuOccupancyMaxActiveClusters) or one CTA per SM
/// (cuOccupancyMaxActiveBlocksPerMultiprocessor) fits at all. Sets the function attributes the
/// launch would set (device::opt_in) before asking the occupancy calculator. Not cached: a
/// CUfunction handle can come back for another kernel once its module is unloaded, and the
/// check costs a few driver calls. Throws error(device) when a driver call fails.
[[nodiscard]] std::string launch_problem(CUfunction fn, const launch_config& config,
                                         const device_info& info);

/// "240 KiB", "12.5 KiB": a byte count for messages.
std::string kib_text(long long bytes);

}  // namespace kk3::device
