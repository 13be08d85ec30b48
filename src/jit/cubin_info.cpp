#include "jit/cubin_info.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace kk3::jit {
namespace {

// .nv.info attribute ids and formats (from the cubin format as cuobjdump prints it).
constexpr std::uint8_t k_eifmt_sval = 4;            // u16 size, then `size` payload bytes
constexpr std::uint8_t k_eiattr_regcount = 0x2f;    // payload: u32 symbol, u32 registers
constexpr std::uint8_t k_eiattr_frame_size = 0x11;  // payload: u32 symbol, u32 bytes

template <class T>
bool read(const std::string& b, std::size_t at, T& out) {
  if (at + sizeof(T) > b.size()) return false;
  std::memcpy(&out, b.data() + at, sizeof(T));
  return true;
}

struct elf_section {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t offset = 0, size = 0;
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

std::string c_string(const std::string& b, std::size_t at) {
  if (at >= b.size()) return {};
  const std::size_t end = b.find('\0', at);
  return b.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

resource_usage read_cubin_resources(const std::string& b, const std::string& lowered_name) {
  resource_usage u;
  if (b.size() < 64 ||
      b.compare(0, 4,
                "\x7f"
                "ELF") != 0 ||
      b[4] != 2)
    return u;  // 64-bit ELF only
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!read(b, 0x28, shoff) || !read(b, 0x3a, shentsize) || !read(b, 0x3c, shnum) ||
      !read(b, 0x3e, shstrndx) || shentsize < 64 || shstrndx >= shnum) {
    return u;
  }
  std::vector<elf_section> sections(shnum);
  std::vector<std::uint32_t> name_offsets(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::size_t at = shoff + static_cast<std::size_t>(i) * shentsize;
    elf_section& s = sections[i];
    if (!read(b, at, name_offsets[i]) || !read(b, at + 4, s.type) || !read(b, at + 24, s.offset) ||
        !read(b, at + 32, s.size) || !read(b, at + 40, s.link) || !read(b, at + 56, s.entsize)) {
      return u;
    }
  }
  for (std::uint16_t i = 0; i < shnum; ++i) {
    sections[i].name = c_string(b, sections[shstrndx].offset + name_offsets[i]);
  }

  // The symbol index of our kernel in .symtab.
  long long symbol = -1;
  for (const elf_section& s : sections) {
    if (s.type != 2 /* SHT_SYMTAB */ || s.entsize < 24 || s.link >= shnum) continue;
    const elf_section& names = sections[s.link];
    for (std::uint64_t k = 0; k * s.entsize < s.size; ++k) {
      std::uint32_t name = 0;
      if (!read(b, s.offset + k * s.entsize, name)) break;
      if (c_string(b, names.offset + name) == lowered_name) symbol = static_cast<long long>(k);
    }
  }

  // From sm_90 on, a kernel's .nv.shared section also holds the 1 KiB that the system
  // reserves (the image then has a .nv.shared.reserved.0 section); ptxas's "bytes smem" and
  // cuFuncGetAttribute(SHARED_SIZE_BYTES) count only the kernel's own.
  bool system_reserve = false;
  for (const elf_section& s : sections) system_reserve |= s.name == ".nv.shared.reserved.0";
  u.shared_bytes = 0;
  for (const elf_section& s : sections) {
    if (s.name == ".nv.shared." + lowered_name) {
      u.shared_bytes = static_cast<int>(system_reserve && s.size >= 1024 ? s.size - 1024 : s.size);
    }
    if (s.name != ".nv.info" || symbol < 0) continue;
    for (std::uint64_t at = s.offset; at + 4 <= s.offset + s.size;) {
      std::uint8_t format = 0, attribute = 0;
      std::uint16_t size = 0;
      read(b, at, format);
      read(b, at + 1, attribute);
      read(b, at + 2, size);
      if (format != k_eifmt_sval) {
        at += 4;
        continue;
      }
      std::uint32_t sym = 0, value = 0;
      if (size >= 8 && read(b, at + 4, sym) && read(b, at + 8, value) && sym == symbol) {
        if (attribute == k_eiattr_regcount) u.registers = static_cast<int>(value);
        if (attribute == k_eiattr_frame_size) u.stack_bytes = static_cast<int>(value);
      }
      at += 4 + size;
    }
  }
  return u;
}

}  // namespace kk3::jit
