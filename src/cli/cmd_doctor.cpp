// `kk3tune doctor`: what this machine offers kk3tune — GPU, driver, NVRTC, include folder,
// cache. Exit 3 when there is no usable GPU (after reporting everything else).
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "jit/toolkit.hpp"

namespace kk3::cli {
namespace {

std::string mib(long long bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(bytes % (1024 * 1024) ? 1 : 0) << bytes / 1048576.0
    << " MiB";
  return s.str();
}

void field(const std::string& name, const std::string& value) {
  std::cout << "  " << std::left << std::setw(20) << (name + ":") << value << "\n";
}

int run_doctor(const global_options& global) {
  std::cout << tool_version_line() << "\n\nCompile environment\n";
  std::vector<std::string> archs;
  for (int a : jit::nvrtc_supported_archs()) archs.push_back("sm_" + std::to_string(a));
  field("NVRTC", jit::nvrtc_version() + " (archs " + join(archs, " ") + ")");
  const located_dir include = jit::find_cuda_include_dir();
  field("CUDA include", include.dir.empty() ? "NOT FOUND (set CUDA_HOME)"
                                            : include.dir.string() + " (" + include.how + ")");
  const located_dir kernels = find_kernel_dir(global.kernel_dir);
  field("kernels", kernels.dir.string() + " (" + kernels.how + ")");
  const located_dir configs = find_config_dir(global.config_dir);
  field("configs", configs.dir.string() + " (" + configs.how + ")");
  const located_dir cache = find_cache_dir();
  field("compile cache", cache.dir.string() + " (" + cache.how + ")");

  std::cout << "\nDevice\n";
  std::string why;
  if (!device::driver_available(&why)) {
    field("driver", "none: " + why);
    field("GPU", "none");
    std::cout << "\nkk3tune: no GPU: nothing can be verified or timed here; compile-only work "
                 "still runs\n"
                 "(e.g. kk3tune compile --arch sm_90a,sm_100a).\n";
    return k_exit_environment;
  }
  field("driver", "CUDA " + device::version_string(device::driver().driver_version));
  const int count = device::device_count();
  if (count == 0) {
    field("GPU", "none");
    std::cout << "\nkk3tune: the driver sees no GPU.\n";
    return k_exit_environment;
  }
  for (int i = 0; i < count; ++i) {
    const device::device_info d = device::query_device(i);
    std::cout << "\n  GPU " << i << ": " << d.name << " (" << d.pci_bus_id << ")\n";
    field("compute capability",
          device::compute_capability_text(d) + " (kernels compile for " + d.arch + ")");
    field("SMs", std::to_string(d.sm_count));
    field("L2", mib(d.l2_bytes));
    field("memory", mib(d.memory_bytes) + ", " + std::to_string(d.memory_bus_bits) + "-bit bus");
    field("max clocks", "SM " + std::to_string(d.max_sm_clock_mhz) + " MHz, memory " +
                            std::to_string(d.max_memory_clock_mhz) + " MHz");
    if (d.clocks) {
      std::ostringstream reasons;
      reasons << "0x" << std::hex << d.clocks->event_reasons;
      field("current clocks", "SM " + std::to_string(d.clocks->sm_mhz) + " MHz, memory " +
                                  std::to_string(d.clocks->memory_mhz) +
                                  " MHz (clock event reasons " + reasons.str() + ")");
    } else {
      field("current clocks", "unknown (no NVML)");
    }
  }
  return include.dir.empty() ? k_exit_environment : k_exit_ok;
}

}  // namespace

void add_doctor_command(CLI::App& app, const global_options& global, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Report the GPU, driver, NVRTC, CUDA include folder and cache; exit 3 without a GPU");
  cmd->callback([&global, &exit_code] { exit_code = run_doctor(global); });
}

}  // namespace kk3::cli
