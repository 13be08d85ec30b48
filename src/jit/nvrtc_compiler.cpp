#include "jit/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <chrono>
#include <memory>
#include <regex>

#include "core/error.hpp"
#include "core/text.hpp"
#include "jit/cubin_info.hpp"

namespace kk3::jit {

void check_nvrtc(int result, const char* call, const char* file, int line) {
  if (result == NVRTC_SUCCESS) return;
  throw error(error_kind::compile, std::string(call) + " failed: " +
                                       nvrtcGetErrorString(static_cast<nvrtcResult>(result)) +
                                       " (" + file + ":" + std::to_string(line) + ")");
}

namespace {

/// Move-only owner of an nvrtcProgram.
class nvrtc_program {
 public:
  nvrtc_program(const std::string& source, const std::string& name) {
    KK3_NVRTC_CALL(
        nvrtcCreateProgram(&m_program, source.c_str(), name.c_str(), 0, nullptr, nullptr));
  }
  ~nvrtc_program() {
    if (m_program) nvrtcDestroyProgram(&m_program);
  }
  nvrtc_program(nvrtc_program&& other) noexcept : m_program(other.m_program) {
    other.m_program = nullptr;
  }
  nvrtc_program& operator=(nvrtc_program&&) = delete;
  nvrtc_program(const nvrtc_program&) = delete;
  nvrtc_program& operator=(const nvrtc_program&) = delete;
  nvrtcProgram get() const { return m_program; }

  std::string log() const {
    std::size_t size = 0;
    KK3_NVRTC_CALL(nvrtcGetProgramLogSize(m_program, &size));
    std::string log(size, '\0');
    KK3_NVRTC_CALL(nvrtcGetProgramLog(m_program, log.data()));
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
  }

 private:
  nvrtcProgram m_program = nullptr;
};

int capture_int(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  return std::regex_search(text, m, pattern) ? std::stoi(m[1].str()) : -1;
}

}  // namespace

resource_usage parse_ptxas_log(const std::string& log, const std::string& lowered_name) {
  // ptxas -v prints, per entry: "Compiling entry function '<name>' for 'sm_90a'", then
  // "N bytes stack frame, N bytes spill stores, N bytes spill loads", then
  // "Used N registers, used N barriers, N bytes smem". Read the block of our entry.
  resource_usage u;
  const std::string marker = "Compiling entry function '" + lowered_name + "'";
  std::size_t start = log.find(marker);
  if (start == std::string::npos) return u;
  std::size_t end = log.find("Compiling entry function", start + marker.size());
  const std::string block =
      log.substr(start, end == std::string::npos ? std::string::npos : end - start);
  u.registers = capture_int(block, std::regex(R"(Used (\d+) registers)"));
  u.stack_bytes = capture_int(block, std::regex(R"((\d+) bytes stack frame)"));
  u.spill_store_bytes = capture_int(block, std::regex(R"((\d+) bytes spill stores)"));
  u.spill_load_bytes = capture_int(block, std::regex(R"((\d+) bytes spill loads)"));
  u.shared_bytes = capture_int(block, std::regex(R"((\d+) bytes smem)"));
  if (u.registers >= 0 && u.shared_bytes < 0) u.shared_bytes = 0;  // ptxas omits "0 bytes smem"
  return u;
}

nvrtc_compiler::nvrtc_compiler(std::filesystem::path kernel_dir,
                               std::filesystem::path cuda_include_dir)
    : m_kernel_dir(std::move(kernel_dir)), m_cuda_include_dir(std::move(cuda_include_dir)) {}

std::vector<std::string> nvrtc_compiler::full_options(const compile_request& request) const {
  std::vector<std::string> options = {
      "-arch=" + request.arch,
      "-std=c++17",
      "-I" + m_kernel_dir.string(),
      "-I" + m_cuda_include_dir.string(),
      "-Xptxas=-v",  // spill counts, when NVRTC logs them; see cubin_info.hpp
  };
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

std::vector<source_file> nvrtc_compiler::sources(const compile_request& request) const {
  return scan_includes(request.source, {m_kernel_dir, m_cuda_include_dir});
}

compile_result nvrtc_compiler::compile(const compile_request& request) const {
  compile_result r;
  r.label = request.label;
  r.arch = request.arch;
  r.options = full_options(request);
  const auto start = std::chrono::steady_clock::now();

  std::string source;
  try {
    source = read_file(request.source);
  } catch (const error& e) {
    r.log = e.what();
    return r;
  }
  nvrtc_program program(source, request.source.filename().string());
  KK3_NVRTC_CALL(nvrtcAddNameExpression(program.get(), request.name_expression.c_str()));

  std::vector<const char*> argv;
  for (const std::string& o : r.options) argv.push_back(o.c_str());
  const nvrtcResult status =
      nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  r.log = program.log();
  r.compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != NVRTC_SUCCESS) {
    r.log = std::string(nvrtcGetErrorString(status)) + "\n" + r.log;
    return r;
  }

  const char* lowered = nullptr;
  KK3_NVRTC_CALL(nvrtcGetLoweredName(program.get(), request.name_expression.c_str(), &lowered));
  r.lowered_name = lowered;
  std::size_t size = 0;
  KK3_NVRTC_CALL(nvrtcGetCUBINSize(program.get(), &size));
  r.cubin.resize(size);
  KK3_NVRTC_CALL(nvrtcGetCUBIN(program.get(), r.cubin.data()));
  // Registers, frame and shared memory from the cubin; spills only where the log has them.
  r.usage = read_cubin_resources(r.cubin, r.lowered_name);
  const resource_usage logged = parse_ptxas_log(r.log, r.lowered_name);
  r.usage.spill_store_bytes = logged.spill_store_bytes;
  r.usage.spill_load_bytes = logged.spill_load_bytes;
  r.ok = true;
  return r;
}

}  // namespace kk3::jit
