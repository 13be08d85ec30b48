#include "verify/npy.hpp"

#include <string>

#include "core/text.hpp"

namespace kk3::verify {

void write_npy(const std::filesystem::path& file, const families::tensor& t) {
  const char* descr = "|u1";
  switch (t.type) {
    case families::dtype::bf16:
      descr = "<u2";
      break;
    case families::dtype::fp32:
      descr = "<f4";
      break;
    case families::dtype::int64:
      descr = "<i8";
      break;
    case families::dtype::fp8_e4m3:
    case families::dtype::u8:
      descr = "|u1";
      break;
  }
  std::string shape;  // "(2, 3)", but "(5,)" for one dimension
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.dims[i]);
  if (t.dims.size() == 1) shape += ',';
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to 64 bytes.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  write_file_atomic(file, out);
}

}  // namespace kk3::verify
