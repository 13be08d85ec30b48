#include "support/test_support.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "device/driver_api.hpp"
#include "jit/toolkit.hpp"

namespace kk3::test {

temp_dir::temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kk3test.XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  m_path = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

command_result run_kk3tune(const std::vector<std::string>& args,
                           const std::vector<std::string>& env) {
  std::string cmd = "env";
  for (const auto& e : env) cmd += " " + shell_quote(e);
  cmd += " " + shell_quote(KK3_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  return run_command(cmd);
}

std::optional<device::device_info> hopper_or_newer(std::string& why) {
  if (!device::driver_available(&why)) {
    why = "no GPU: " + why;
    return std::nullopt;
  }
  if (device::device_count() == 0) {
    why = "no GPU: the driver sees none";
    return std::nullopt;
  }
  device::device_info info = device::query_device(0);
  if (info.cc_major < 9) {
    why = info.name + " is older than sm_90 (PDL needs Hopper)";
    return std::nullopt;
  }
  return info;
}

void hopper_test::SetUp() {
  std::string why;
  const auto gpu = hopper_or_newer(why);
  if (!gpu) GTEST_SKIP() << why;
  info = *gpu;
  ctx.emplace(0);
}

void hopper_jit_test::SetUp() {
  hopper_test::SetUp();
  if (IsSkipped()) return;
  engine.emplace(make_engine({}));
  helpers.emplace(*engine, info.arch, KK3_KERNEL_DIR);
}

command_result run_command(const std::string& command_line) {
  const std::string cmd = command_line + " 2>&1";
  command_result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int cubin_sm(const std::string& cubin) {
  if (cubin.size() < 64 || cubin.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0)
    return -1;
  unsigned flags = 0;
  std::memcpy(&flags, cubin.data() + 48, sizeof flags);  // e_flags of a 64-bit ELF header
  return static_cast<int>((flags >> 8) & 0xff);
}

jit::jit_engine make_engine(const std::filesystem::path& cache_dir,
                            const std::filesystem::path& kernel_dir) {
  jit::jit_options o;
  o.use_cache = !cache_dir.empty();
  o.cache_dir = cache_dir;
  return jit::jit_engine(jit::nvrtc_compiler(kernel_dir, jit::require_cuda_include_dir().dir), o);
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace kk3::test
