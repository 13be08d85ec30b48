#include "jit/cache.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::jit {
namespace fs = std::filesystem;

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
    compile_result r;
    std::istringstream meta(read_file(entry(key, ".meta")));
    std::string line;
    int fields = 0;
    while (std::getline(meta, line)) {
      const auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      const std::string name = line.substr(0, eq), value = line.substr(eq + 1);
      ++fields;
      if (name == "lowered_name") r.lowered_name = value;
      else if (name == "registers") r.usage.registers = std::stoi(value);
      else if (name == "spill_store_bytes") r.usage.spill_store_bytes = std::stoi(value);
      else if (name == "spill_load_bytes") r.usage.spill_load_bytes = std::stoi(value);
      else if (name == "shared_bytes") r.usage.shared_bytes = std::stoi(value);
      else if (name == "stack_bytes") r.usage.stack_bytes = std::stoi(value);
      else if (name == "compile_s") r.compile_s = std::stod(value);
      else --fields;
    }
    r.cubin = read_file(entry(key, ".cubin"));
    r.log = read_file(entry(key, ".log"));
    if (fields < 7 || r.lowered_name.empty() || r.cubin.size() < 4 ||
        r.cubin.compare(0, 4, "\x7f" "ELF") != 0) {
      return std::nullopt;  // damaged entry: recompile and overwrite
    }
    r.ok = true;
    r.cache_hit = true;
    r.key = key;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void kernel_cache::store(const compile_result& r) const {
  if (!r.ok || r.key.empty()) return;
  std::error_code ec;
  fs::create_directories(m_dir / r.key.substr(0, 2), ec);
  std::ostringstream meta;
  meta << "lowered_name=" << r.lowered_name << "\nregisters=" << r.usage.registers
       << "\nspill_store_bytes=" << r.usage.spill_store_bytes
       << "\nspill_load_bytes=" << r.usage.spill_load_bytes
       << "\nshared_bytes=" << r.usage.shared_bytes << "\nstack_bytes=" << r.usage.stack_bytes
       << "\ncompile_s=" << r.compile_s << "\n";
  write_file_atomic(entry(r.key, ".cubin"), r.cubin);
  write_file_atomic(entry(r.key, ".log"), r.log);
  write_file_atomic(entry(r.key, ".meta"), meta.str());
}

}  // namespace kk3::jit
