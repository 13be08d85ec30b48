#pragma once
// The tool's version and the git revision it was built from.
#include <string>

namespace kk3 {

/// e.g. "0.1.0"
std::string tool_version();
/// e.g. "3f2a9c1b7d4e", or "unknown" outside a git checkout
std::string git_revision();
/// "kk3tune 0.1.0 (git 3f2a9c1b7d4e)"
std::string tool_version_line();
/// Whether a revision as git_revision() writes it names a tree with uncommitted changes to
/// tracked files ("3f2a9c1b7d4e-dirty"): what such a build made traces to no commit.
bool dirty_revision(const std::string& revision);

}  // namespace kk3
