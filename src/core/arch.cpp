#include "core/arch.hpp"

#include <regex>

#include "core/error.hpp"

namespace kk3 {

std::string arch_for_compute_capability(int major, int minor) {
  const std::string base = "sm_" + std::to_string(major * 10 + minor);
  return major >= 9 ? base + "a" : base;
}

int arch_number(const std::string& arch) {
  static const std::regex pattern("sm_([0-9]+)[af]?");
  std::smatch m;
  if (!std::regex_match(arch, m, pattern)) {
    throw error(error_kind::usage,
                "--arch: '" + arch + "' is not an arch name (expected e.g. sm_90a or sm_100a)");
  }
  if (m[1].length() > 4) {
    throw error(error_kind::usage, "--arch: '" + arch + "' is not an arch NVRTC could know");
  }
  return std::stoi(m[1].str());
}

}  // namespace kk3
