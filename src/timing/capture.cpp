#include "timing/capture.hpp"

#include <ctime>

#include "core/version.hpp"
#include "jit/toolkit.hpp"

namespace kk3::timing {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

results::run_context capture_context(const device::device_info& gpu,
                                     const std::vector<std::string>& argv) {
  results::run_context c;
  c.gpu = gpu;
  c.gpu.clocks = device::read_clocks(gpu.pci_bus_id);
  c.nvrtc_version = jit::nvrtc_version();
  c.tool_version = tool_version();
  c.git_revision = git_revision();
  c.argv = argv;
  c.utc_time = utc_now_iso8601();
  return c;
}

}  // namespace kk3::timing
