#include "core/version.hpp"

namespace kk3 {

const char* build_git_revision();  // generated at build time

std::string tool_version() {
  return KK3_VERSION;
}
std::string git_revision() {
  return build_git_revision();
}
std::string tool_version_line() {
  return "kk3tune " + tool_version() + " (git " + git_revision() + ")";
}

}  // namespace kk3
