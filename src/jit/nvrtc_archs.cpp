#include "jit/nvrtc_archs.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "jit/toolkit.hpp"

namespace kk3::jit {

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
