#pragma once
// The machine's figures every timed result carries (SPEC 4): the copy ceiling and what an empty
// kernel costs per launch in a graph. Two results whose figures differ came from different
// machines or clocks; `compare` shows both files' figures side by side.
#include <filesystem>

#include "jit/batch.hpp"
#include "timing/timer.hpp"

namespace kk3::timing {

/// The copy ceiling of this GPU the way the benchmarks measure it: the best copy_example variant
/// at T = 16384 (each byte read once and written once); 0 when none compiles.
[[nodiscard]] double measure_copy_ceiling(const jit::jit_engine& engine,
                                          const device::device_info& info, const timer& t,
                                          const std::filesystem::path& kernel_dir,
                                          const std::filesystem::path& config_dir);

/// An empty kernel's per-launch time in graph mode.
[[nodiscard]] double measure_empty_kernel(const timer& t, const helper_kernels& helpers);

}  // namespace kk3::timing
