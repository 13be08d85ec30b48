#pragma once
// Helpers shared by the tests: temporary folders, running the kk3tune binary, the JIT.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <optional>

#include "device/device_info.hpp"
#include "device/handles.hpp"
#include "jit/batch.hpp"
#include "timing/helper_kernels.hpp"

namespace kk3::test {

/// The environment that hides the NVIDIA driver from a kk3tune child, so a test of the binary
/// behaves the same with or without a GPU.
inline const std::string k_no_driver = "KK3TUNE_LIBCUDA=/nonexistent/libcuda.so.1";

/// Whether `text` holds `part`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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

/// Runs a shell command line (stdout and stderr together) and returns what it printed.
command_result run_command(const std::string& command_line);

/// Shell-quotes one word.
std::string shell_quote(const std::string& word);

/// GPU 0 if it can run the GPU tests (a driver, a GPU, sm_90 or newer for PDL); otherwise
/// nothing, with `why` saying what is missing (for GTEST_SKIP).
std::optional<device::device_info> hopper_or_newer(std::string& why);

/// A GPU test: skips unless GPU 0 is sm_90 or newer, else holds its info and its context.
/// Derived fixtures call hopper_test::SetUp() first and return if IsSkipped().
class hopper_test : public ::testing::Test {
 protected:
  void SetUp() override;
  device::device_info info;
  std::optional<device::context> ctx;
};

/// A GPU test that compiles: a JIT engine over kernels/ (no cache) and the measurement
/// engine's helper kernels for the GPU. Derived fixtures call hopper_jit_test::SetUp() first and
/// return if IsSkipped().
class hopper_jit_test : public hopper_test {
 protected:
  void SetUp() override;
  std::optional<jit::jit_engine> engine;
  std::optional<timing::helper_kernels> helpers;
};

/// Runs the kk3tune binary with `args` (shell-quoted here) and extra VAR=value settings.
command_result run_kk3tune(const std::vector<std::string>& args,
                           const std::vector<std::string>& env = {});

/// The SM number an ELF cubin was compiled for (90 for sm_90a, 100 for sm_100a).
int cubin_sm(const std::string& cubin);

/// A JIT engine over kernels/ (or `kernel_dir`), with a cache in `cache_dir` (none if empty).
jit::jit_engine make_engine(const std::filesystem::path& cache_dir,
                            const std::filesystem::path& kernel_dir = KK3_KERNEL_DIR);

/// Writes a file, creating its folder.
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace kk3::test
