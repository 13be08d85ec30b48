#pragma once
// The context block of every result: where, when and with what a measurement was made
// (timing/capture.hpp captures it; the codec writes it).
#include <string>
#include <vector>

#include "device/device_info.hpp"

namespace kk3::results {

/// Facts about the run that produced a result.
struct run_context {
  device::device_info gpu;        ///< the GPU measured on
  std::string nvrtc_version;      ///< e.g. "13.0"
  std::string tool_version;       ///< e.g. "0.1.0"
  std::string git_revision;       ///< the build's revision
  std::vector<std::string> argv;  ///< the command line
  std::string utc_time;           ///< ISO 8601, e.g. "2026-11-29T08:30:00Z"
  double copy_ceiling_tb_s = 0;   ///< the machine's figures (timing/figures.hpp), 0 = not measured
  double empty_kernel_us = 0;
};

/// The command the user typed: `argv` without the internal flags a sweep's supervisor adds to
/// its workers' command lines (--worker, --gpu-worker I/N, --claims DIR). What a sweep records
/// in its result's context, whichever process writes it, and what a report shows of a file
/// written before that.
[[nodiscard]] std::vector<std::string> typed_command(const std::vector<std::string>& argv);

}  // namespace kk3::results
