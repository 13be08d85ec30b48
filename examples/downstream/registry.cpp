// The runners the mode translation units register, by family and mode.
#include <map>
#include <utility>

#include "example.h"

namespace example {
namespace {

std::map<std::pair<std::string, std::string>, runner>& runners() {
  static std::map<std::pair<std::string, std::string>, runner> all;
  return all;
}

}  // namespace

registration::registration(const char* family, const char* mode, runner r) {
  runners()[{family, mode}] = r;
}

runner find_runner(const std::string& family, const std::string& mode) {
  const auto it = runners().find({family, mode});
  return it == runners().end() ? nullptr : it->second;
}

}  // namespace example
