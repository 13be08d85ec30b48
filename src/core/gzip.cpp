#include "core/gzip.hpp"

#include <zlib.h>

#include <climits>

#include "core/error.hpp"

namespace kk3 {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::filesystem::path& file, std::string_view bytes) {
  const auto fail = [&](const std::string& what) {
    return error(error_kind::input,
                 file.string() + ": " + what + " (gzip data); check the file with gzip -t");
  };
  std::string out;
  std::size_t at = 0;
  char chunk[1 << 16];
  while (at < bytes.size()) {  // one gzip member per pass
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw fail("zlib cannot start");
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      const std::size_t left = bytes.size() - at;
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + at));
      z.avail_in = static_cast<uInt>(std::min<std::size_t>(left, UINT_MAX));
      z.next_out = reinterpret_cast<Bytef*>(chunk);
      z.avail_out = sizeof chunk;
      rc = inflate(&z, Z_NO_FLUSH);
      const std::size_t consumed =
          static_cast<std::size_t>(z.next_in - reinterpret_cast<const Bytef*>(bytes.data() + at));
      at += consumed;
      out.append(chunk, sizeof chunk - z.avail_out);
      if (rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const std::string msg = z.msg ? z.msg : "error " + std::to_string(rc);
        inflateEnd(&z);
        throw fail("corrupt: " + msg);
      }
      if (at >= bytes.size() && z.avail_out != 0) {
        inflateEnd(&z);
        throw fail("ends early (truncated?)");
      }
    }
    inflateEnd(&z);
    if (at < bytes.size() && !is_gzip(bytes.substr(at)))
      break;  // trailing garbage after a member: ignored, as gunzip warns
  }
  return out;
}

std::string maybe_gunzip(const std::filesystem::path& file, std::string bytes) {
  return is_gzip(bytes) ? gunzip(file, bytes) : bytes;
}

}  // namespace kk3
