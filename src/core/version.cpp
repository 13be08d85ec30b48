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
bool dirty_revision(const std::string& revision) {
  const std::string suffix = "-dirty";
  return revision.size() > suffix.size() &&
         revision.compare(revision.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace kk3
