#include "core/text.hpp"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <unistd.h>

#include <fcntl.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace kk3 {

std::string trim(std::string_view text) {
  const char* blanks = " \t\r\n";
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(blanks);
  return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> split_keeping_empty(std::string_view text, char delimiter) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(delimiter, start);
    if (end == std::string_view::npos) end = text.size();
    items.push_back(trim(text.substr(start, end - start)));
    start = end + 1;
  }
  return items;
}

std::vector<std::string> split(std::string_view text, char delimiter) {
  std::vector<std::string> items = split_keeping_empty(text, delimiter);
  items.erase(std::remove(items.begin(), items.end(), std::string()), items.end());
  return items;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::optional<double> parse_percent(std::string_view text) {
  std::string number(trim(text));
  if (!number.empty() && number.back() == '%') number = trim(number.substr(0, number.size() - 1));
  if (number.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v / 100;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;  // at most two edits
  for (const std::string& c : candidates) {
    const bool begins = word.size() >= 2 && std::string_view(c).substr(0, word.size()) == word;
    const std::size_t d = begins ? 0 : edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw error(error_kind::io, file.string() + ": cannot be read (" + std::strerror(errno) + ")");
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void write_file_atomic(const std::filesystem::path& file, std::string_view bytes) {
  static std::atomic<unsigned> counter{0};
  auto tmp = file;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw error(error_kind::io,
                  file.string() + ": cannot be written (" + std::strerror(errno) + ")");
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw error(error_kind::io, file.string() + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw error(error_kind::io, file.string() + ": cannot be renamed into place");
  }
}

void require_writable_folder(const std::filesystem::path& folder, const std::string& what,
                             bool may_create) {
  namespace fs = std::filesystem;
  const fs::path given = folder.empty() ? fs::path(".") : folder;
  fs::path probe_in = given;
  std::error_code ec;
  if (may_create) {  // the nearest folder that exists
    while (!fs::exists(probe_in, ec) && probe_in.has_relative_path() &&
           probe_in.has_parent_path() && probe_in.parent_path() != probe_in) {
      probe_in = probe_in.parent_path();
    }
    if (!fs::exists(probe_in, ec)) probe_in = ".";
  }
  if (!fs::exists(probe_in, ec))
    throw error(error_kind::io, what + ": cannot be written (no folder " + given.string() + ")");
  if (!fs::is_directory(probe_in, ec)) {
    throw error(error_kind::io,
                what + ": cannot be written (" + probe_in.string() + " is not a folder)");
  }
  // access(W_OK) says yes to root on a read-only mount; creating a file is the true test.
  const fs::path probe = probe_in / (".kk3tune-write-test." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    if (probe_in != given) {  // a folder to create, under one that takes nothing new
      throw error(error_kind::io, what + ": cannot be created: " + given.string() +
                                      " does not exist, and its nearest existing folder " +
                                      probe_in.string() + " takes no new folder (" + why + ")");
    }
    throw error(error_kind::io,
                what + ": cannot be written (folder " + probe_in.string() + ": " + why + ")");
  }
  ::close(fd);
  fs::remove(probe, ec);
}

std::optional<long long> parse_integer(const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {  // not a number, or beyond 64 bits
    return std::nullopt;
  }
  if (used == 0 || used != text.size()) return std::nullopt;
  return v;
}

std::string replace_chars(std::string_view text,
                          std::initializer_list<std::pair<char, std::string_view>> replacements) {
  std::string out;
  for (char c : text) {
    const auto* r = std::find_if(replacements.begin(), replacements.end(),
                                 [&](const auto& p) { return p.first == c; });
    if (r == replacements.end()) {
      out += c;
    } else {
      out += r->second;
    }
  }
  return out;
}

std::string format_double(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string format_number(double x) {
  return format_double("%.6g", x);
}

void require_output_file(const std::filesystem::path& file, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    throw error(error_kind::usage, what + ": is a folder; name a file in it (e.g. " +
                                       (file / "out.json").string() + ")");
  }
  require_writable_folder(file.has_parent_path() ? file.parent_path() : fs::path("."), what);
}

}  // namespace kk3
