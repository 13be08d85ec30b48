#pragma once
// Helpers shared by the tests: temporary folders, running the kk3tune binary, the JIT.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "jit/batch.hpp"

namespace kk3::test {

/// A fresh temporary folder, removed with everything in it at the end of the scope.
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

/// What a run of the kk3tune binary printed (stdout and stderr together) and its exit code.
struct command_result {
  int exit_code = -1;
  std::string output;
};

/// Runs the kk3tune binary with `args` (shell-quoted here) and extra VAR=value settings.
command_result run_kk3tune(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

/// The SM number an ELF cubin was compiled for (90 for sm_90a, 100 for sm_100a).
int cubin_sm(const std::string& cubin);

/// A JIT engine over kernels/ (or `kernel_dir`), with a cache in `cache_dir` (none if empty).
jit::jit_engine make_engine(const std::filesystem::path& cache_dir,
                            const std::filesystem::path& kernel_dir = KK3_KERNEL_DIR);

/// Writes a file, creating its folder.
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace kk3::test
