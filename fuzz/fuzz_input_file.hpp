#pragma once
// The fuzz targets' one piece of plumbing: kk3tune's readers take a path, so each input is
// written to a scratch file first (one per process, so parallel fuzzer jobs do not collide).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kk3::fuzz {

/// A file holding the bytes of one fuzz input; removed when the process ends its use of it.
class input_file {
 public:
  /// `tag` makes the name unique per input within one run (e.g. "base", "new").
  input_file(const std::string& tag, const std::uint8_t* data, std::size_t size)
      : m_path(std::filesystem::temp_directory_path() /
               ("kk3-fuzz-" + std::to_string(::getpid()) + "-" + tag + ".json")) {
    std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();  // the scratch file itself failing is not a finding of the target
  }
  ~input_file() {
    std::error_code ignored;
    std::filesystem::remove(m_path, ignored);
  }
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace kk3::fuzz
