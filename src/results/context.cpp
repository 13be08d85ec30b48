#include "results/context.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace kk3::results {
namespace {

/// The flags a supervisor adds to its workers' command lines, and whether each takes a value.
const std::pair<const char*, bool> k_worker_flags[] = {
    {"--worker", false}, {"--gpu-worker", true}, {"--claims", true}};

}  // namespace

std::vector<std::string> typed_command(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const auto* flag =
        std::find_if(std::begin(k_worker_flags), std::end(k_worker_flags), [&](const auto& f) {
          return a == f.first || (f.second && a.rfind(std::string(f.first) + "=", 0) == 0);
        });
    if (i == 0 || flag == std::end(k_worker_flags)) {
      out.push_back(a);
    } else if (flag->second && a == flag->first) {
      ++i;  // its value
    }
  }
  return out;
}

}  // namespace kk3::results
