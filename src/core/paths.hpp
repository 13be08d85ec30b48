#pragma once
// Where kk3tune finds its kernels and configs, and where it caches compiled images.
#include <filesystem>
#include <string>

namespace kk3 {

/// A folder and a sentence saying how it was found (for `doctor`).
struct located_dir {
  std::filesystem::path dir;  ///< the folder; empty when none was found
  std::string how;            ///< e.g. "from $KK3TUNE_KERNEL_DIR"
};

/// kernels/: the --kernel-dir flag, else $KK3TUNE_KERNEL_DIR, else beside the executable
/// (<exe>/../kernels, <exe>/../share/kk3tune/kernels), else the source tree it was built from.
[[nodiscard]] located_dir find_kernel_dir(const std::filesystem::path& flag_value = {});
/// configs/: the same search with --config-dir, $KK3TUNE_CONFIG_DIR and configs/.
[[nodiscard]] located_dir find_config_dir(const std::filesystem::path& flag_value = {});
/// The compile cache: --cache-dir, else $XDG_CACHE_HOME/kk3tune, else ~/.cache/kk3tune.
[[nodiscard]] located_dir find_cache_dir(const std::filesystem::path& flag_value = {});

/// Checks, before any compile, that the kernel folder (`kernels`, as find_kernel_dir found it)
/// exists and holds `source`, the kernel file of family `family` (relative to the folder).
/// Throws error(config) naming the folder, how it was found, and the missing file.
void require_kernel_source(const located_dir& kernels, const std::filesystem::path& source,
                           const std::string& family);

/// The folder holding the running executable.
std::filesystem::path executable_dir();
/// How to run this binary again from the current folder, for commands the tool prints: its name
/// where the PATH finds this very file, else its path (relative to the current folder where it
/// lies under it, e.g. "build/kk3tune"); "kk3tune" where /proc/self/exe cannot be read.
std::string command_path();

}  // namespace kk3
