#include "core/file_roles.hpp"

#include <sys/stat.h>

#include "core/error.hpp"

namespace kk3 {
namespace fs = std::filesystem;

namespace {

/// The path with links and ".." resolved as far as it exists (the rest as written).
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p, ec).lexically_normal() : r;
}

/// The file as the message names it, the flag first: "the file of --baseline", "a file of the
/// --config-dir folder", or for an argument without a flag "the results file".
std::string described(const std::string& option, bool in_folder) {
  if (in_folder) return "a file of the " + option + " folder";
  if (option.rfind("-", 0) == 0) return "the file of " + option;
  return "the " + option + " file";
}

}  // namespace

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return resolved(a) == resolved(b);
}

void file_roles::input(std::string option, const fs::path& file) {
  if (!file.empty()) m_inputs.push_back({std::move(option), file});
}

void file_roles::input_folder(const std::string& option, const fs::path& folder) {
  std::error_code ec;
  if (folder.empty() || !fs::is_directory(folder, ec)) return;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) m_inputs.push_back({option, it->path(), true});
  }
}

void file_roles::output(std::string option, const fs::path& file) {
  if (!file.empty()) m_outputs.push_back({std::move(option), file});
}

void file_roles::check() const {
  for (std::size_t i = 0; i < m_outputs.size(); ++i) {
    const entry& out = m_outputs[i];
    for (const entry& in : m_inputs) {
      if (!same_file(out.file, in.file)) continue;
      throw error(error_kind::usage,
                  out.option + " " + out.file.string() + " would overwrite " +
                      described(in.option, in.in_folder) + " (" + in.file.string() +
                      ", the same file): writing it would destroy an input; name another "
                      "output; nothing was written");
    }
    for (std::size_t j = 0; j < i; ++j) {
      const entry& other = m_outputs[j];
      if (!same_file(out.file, other.file)) continue;
      throw error(error_kind::usage,
                  out.option + " " + out.file.string() + " would overwrite " +
                      described(other.option, false) + " (" + other.file.string() +
                      ", the same file): one output would replace the other; name two files; "
                      "nothing was written");
    }
  }
}

}  // namespace kk3
