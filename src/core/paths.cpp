#include "core/paths.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"

namespace kk3 {
namespace fs = std::filesystem;

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::string command_path() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return "kk3tune";
  // A binary replaced while it runs (a rebuild) reads as "PATH (deleted)": PATH runs the new one.
  const std::string deleted = " (deleted)";
  std::string text = exe.string();
  if (text.size() > deleted.size() &&
      text.compare(text.size() - deleted.size(), deleted.size(), deleted) == 0)
    exe = text.substr(0, text.size() - deleted.size());
  const std::string name = exe.filename().string();
  if (const char* path = std::getenv("PATH")) {
    std::string list = path;
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      const fs::path candidate = fs::path(list.substr(start, end - start)) / name;
      if (end > start && fs::equivalent(candidate, exe, ec) && !ec) return name;
      start = end + 1;
    }
  }
  const fs::path shown = fs::proximate(exe, ec);
  if (ec || shown.empty() || *shown.begin() == "..") return exe.string();
  return shown.has_parent_path() ? shown.string() : "./" + shown.string();
}

namespace {

located_dir find_data_dir(const fs::path& flag_value, const char* flag, const char* env_name,
                          const char* subdir, const char* source_dir) {
  if (!flag_value.empty()) return {flag_value, std::string("from ") + flag};
  if (const char* env = std::getenv(env_name); env && *env) {
    return {fs::path(env), std::string("from $") + env_name};
  }
  const fs::path exe = executable_dir();
  const std::vector<fs::path> beside = {exe / ".." / subdir,
                                        exe / ".." / "share" / "kk3tune" / subdir};
  for (const auto& candidate : beside) {
    std::error_code ec;
    if (!exe.empty() && fs::is_directory(candidate, ec)) {
      return {fs::weakly_canonical(candidate, ec), "beside the executable"};
    }
  }
  return {fs::path(source_dir), "the source tree kk3tune was built from"};
}

}  // namespace

located_dir find_kernel_dir(const fs::path& flag_value) {
  return find_data_dir(flag_value, "--kernel-dir", "KK3TUNE_KERNEL_DIR", "kernels",
                       KK3_SOURCE_KERNEL_DIR);
}

located_dir find_config_dir(const fs::path& flag_value) {
  return find_data_dir(flag_value, "--config-dir", "KK3TUNE_CONFIG_DIR", "configs",
                       KK3_SOURCE_CONFIG_DIR);
}

void require_kernel_source(const located_dir& kernels, const fs::path& source,
                           const std::string& family) {
  std::error_code ec;
  if (!fs::is_directory(kernels.dir, ec)) {
    throw error(error_kind::config, kernels.dir.string() +
                                        ": no such folder: the kernel sources (" + kernels.how +
                                        "; `kk3tune doctor` shows the search)");
  }
  const fs::path file = kernels.dir / source;
  if (!fs::is_regular_file(file, ec)) {
    throw error(error_kind::config, file.string() + ": missing: the kernel source of family " +
                                        family + " (kernel folder " + kernels.how + ")");
  }
}

located_dir find_cache_dir(const fs::path& flag_value) {
  if (!flag_value.empty()) return {flag_value, "from --cache-dir"};
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return {fs::path(xdg) / "kk3tune", "from $XDG_CACHE_HOME"};
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return {fs::path(home) / ".cache" / "kk3tune", "from $HOME/.cache"};
  }
  return {fs::temp_directory_path() / "kk3tune-cache", "in the temporary folder (no $HOME)"};
}

}  // namespace kk3
