// .npy files from --save-workspace: format 1.0 header, aligned, the right dtype and shape.
#include <gtest/gtest.h>

#include "core/text.hpp"
#include "support/test_support.hpp"
#include "verify/npy.hpp"

namespace kk3::verify {
namespace {

TEST(npy, header_and_data_follow_format_1_0) {
  test::temp_dir dir;
  families::problem p;
  auto& t = p.add("x", families::dtype::bf16, {2, 3}, families::role::input);
  for (int i = 0; i < 6; ++i) t.data<std::uint16_t>()[i] = static_cast<std::uint16_t>(0x3f80 + i);
  write_npy(dir.path() / "x.npy", t);
  const std::string f = read_file(dir.path() / "x.npy");
  ASSERT_GE(f.size(), 10u);
  EXPECT_EQ(f.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(f[6], '\x01');
  EXPECT_EQ(f[7], '\x00');
  const std::size_t header =
      static_cast<unsigned char>(f[8]) | (static_cast<unsigned char>(f[9]) << 8);
  EXPECT_EQ((10 + header) % 64, 0u);  // data starts aligned
  const std::string dict = f.substr(10, header);
  EXPECT_EQ(dict.rfind("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << dict;
  EXPECT_EQ(dict.back(), '\n');
  ASSERT_EQ(f.size(), 10 + header + 12);
  EXPECT_EQ(static_cast<unsigned char>(f[10 + header]), 0x80);  // little-endian 0x3f80
  EXPECT_EQ(static_cast<unsigned char>(f[10 + header + 1]), 0x3f);

  auto& one = p.add("y", families::dtype::int64, {5}, families::role::input);
  write_npy(dir.path() / "y.npy", one);
  const std::string g = read_file(dir.path() / "y.npy");
  EXPECT_NE(g.find("'descr': '<i8'"), std::string::npos);
  EXPECT_NE(g.find("'shape': (5,)"), std::string::npos);  // a one-element tuple keeps its comma
}

}  // namespace
}  // namespace kk3::verify
