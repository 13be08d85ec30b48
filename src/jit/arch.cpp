#include "jit/arch.hpp"

#include <algorithm>
#include <regex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "jit/toolkit.hpp"

namespace kk3::jit {

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

std::vector<std::string> parse_arch_list(const std::string& list) {
  std::vector<std::string> archs = split(list, ',');
  if (archs.empty()) throw error(error_kind::usage, "--arch: expected at least one arch");
  const std::vector<int> supported = nvrtc_supported_archs();
  for (const std::string& arch : archs) {
    const int number = arch_number(arch);
    if (std::find(supported.begin(), supported.end(), number) == supported.end()) {
      std::vector<std::string> names;
      for (int s : supported) names.push_back("sm_" + std::to_string(s));
      throw error(error_kind::usage, "--arch: NVRTC " + nvrtc_version() + " does not know '" +
                                         arch + "' (it supports " + join(names, ", ") + ")");
    }
  }
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

}  // namespace kk3::jit
