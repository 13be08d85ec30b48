#include "jit/cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"

namespace kk3::jit {
namespace fs = std::filesystem;
namespace {

/// The .meta fields load() needs; an entry lacking one is a miss.
const char* const k_meta_fields[] = {"key",          "cubin_bytes",       "cubin_xxh3",
                                     "log_bytes",    "log_xxh3",          "lowered_name",
                                     "registers",    "spill_store_bytes", "spill_load_bytes",
                                     "shared_bytes", "stack_bytes",       "compile_s"};

/// name=value lines; nothing when a line is not one or a name comes twice.
std::optional<std::map<std::string, std::string>> read_meta(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    if (!out.emplace(line.substr(0, eq), line.substr(eq + 1)).second) return std::nullopt;
  }
  for (const char* field : k_meta_fields) {
    if (!out.count(field)) return std::nullopt;
  }
  return out;
}

/// An int field of resource_usage: -1 (unknown) or more.
std::optional<int> usage_value(const std::string& text) {
  const std::optional<long long> v = parse_integer(text);
  if (!v || *v < -1 || *v > (1 << 30)) return std::nullopt;
  return static_cast<int>(*v);
}

/// Whether `bytes` are the file the meta describes under `name` (its size and digest).
bool matches(const std::map<std::string, std::string>& meta, const std::string& name,
             const std::string& bytes) {
  const std::optional<long long> size = parse_integer(meta.at(name + "_bytes"));
  return size && *size == static_cast<long long>(bytes.size()) &&
         meta.at(name + "_xxh3") == hash_hex(bytes);
}

/// An exclusive flock on `file` while it lives (released by close); none when the file cannot
/// be opened (a read-only cache: the store then fails on its first write anyway).
class store_lock {
 public:
  explicit store_lock(const fs::path& file)
      : m_fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    while (m_fd >= 0 && ::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~store_lock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  store_lock(const store_lock&) = delete;
  store_lock& operator=(const store_lock&) = delete;

 private:
  int m_fd;
};

}  // namespace

kernel_cache::kernel_cache(fs::path dir) : m_dir(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  if (ec || !fs::is_directory(m_dir)) {
    throw error(error_kind::io, m_dir.string() + ": cannot create the compile cache folder (" +
                                    ec.message() + "); use --cache-dir or --no-cache");
  }
}

fs::path kernel_cache::entry(const std::string& key, const char* extension) const {
  return m_dir / key.substr(0, 2) / (key + extension);
}

std::optional<compile_result> kernel_cache::load(const std::string& key) const {
  std::error_code ec;
  if (!fs::is_regular_file(entry(key, ".meta"), ec)) return std::nullopt;
  try {
    const auto meta = read_meta(read_file(entry(key, ".meta")));
    if (!meta || meta->at("key") != key) return std::nullopt;  // damaged, or another key's
    compile_result r;
    r.cubin = read_file(entry(key, ".cubin"));
    r.log = read_file(entry(key, ".log"));
    if (!matches(*meta, "cubin", r.cubin) || !matches(*meta, "log", r.log))
      return std::nullopt;  // truncated or swapped
    if (r.cubin.size() < 4 || r.cubin.compare(0, 4,
                                              "\x7f"
                                              "ELF") != 0)
      return std::nullopt;
    r.lowered_name = meta->at("lowered_name");
    const auto registers = usage_value(meta->at("registers")),
               spill_store = usage_value(meta->at("spill_store_bytes")),
               spill_load = usage_value(meta->at("spill_load_bytes")),
               shared = usage_value(meta->at("shared_bytes")),
               stack = usage_value(meta->at("stack_bytes"));
    if (r.lowered_name.empty() || !registers || !spill_store || !spill_load || !shared || !stack)
      return std::nullopt;
    r.usage = {*registers, *spill_store, *spill_load, *shared, *stack};
    const std::string& compile_s = meta->at("compile_s");
    char* end = nullptr;
    r.compile_s = std::strtod(compile_s.c_str(), &end);
    if (compile_s.empty() || *end != '\0' || !std::isfinite(r.compile_s) || r.compile_s < 0)
      return std::nullopt;
    r.ok = true;
    r.cache_hit = true;
    r.key = key;
    return r;
  } catch (const std::exception&) {  // a file vanished or cannot be read: recompile
    return std::nullopt;
  }
}

void kernel_cache::store(const compile_result& r) const {
  if (!r.ok || r.key.empty()) return;
  std::error_code ec;
  fs::create_directories(m_dir / r.key.substr(0, 2), ec);
  std::ostringstream meta;
  meta << "key=" << r.key << "\ncubin_bytes=" << r.cubin.size()
       << "\ncubin_xxh3=" << hash_hex(r.cubin) << "\nlog_bytes=" << r.log.size()
       << "\nlog_xxh3=" << hash_hex(r.log) << "\nlowered_name=" << r.lowered_name
       << "\nregisters=" << r.usage.registers << "\nspill_store_bytes=" << r.usage.spill_store_bytes
       << "\nspill_load_bytes=" << r.usage.spill_load_bytes
       << "\nshared_bytes=" << r.usage.shared_bytes << "\nstack_bytes=" << r.usage.stack_bytes
       << "\ncompile_s=" << r.compile_s << "\n";
  // One store of the folder at a time: two writers of one key leave one's whole entry (their
  // images are equal for one key anyway; the lock makes it hold for any bytes).
  const store_lock lock(m_dir / r.key.substr(0, 2) / ".store.lock");
  write_file_atomic(entry(r.key, ".cubin"), r.cubin);
  write_file_atomic(entry(r.key, ".log"), r.log);
  write_file_atomic(entry(r.key, ".meta"), meta.str());
}

}  // namespace kk3::jit
