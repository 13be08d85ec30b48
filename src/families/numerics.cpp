#include "families/numerics.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace kk3::families {

float bf16_to_f32(std::uint16_t bits) {
  const std::uint32_t w = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &w, sizeof f);
  return f;
}

std::uint16_t f32_to_bf16_rn(float x) {
  if (std::isnan(x)) return 0x7fff;
  std::uint32_t w;
  std::memcpy(&w, &x, sizeof w);
  w += 0x7fffu + ((w >> 16) & 1u);  // ties to even; carries into the exponent as it should
  return static_cast<std::uint16_t>(w >> 16);
}

std::uint16_t f64_to_bf16_rn(double x) {
  if (std::isnan(x)) return 0x7fff;
  // Truncate to bf16 through float (toward zero, so no early rounding), then pick the nearer of
  // that value and the next one away from zero, comparing in double; ties go to the even one.
  float f = static_cast<float>(x);
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  std::uint32_t w;
  std::memcpy(&w, &f, sizeof w);
  const std::uint16_t low = static_cast<std::uint16_t>(w >> 16);
  if ((low & 0x7f80) == 0x7f80) return low;  // infinity
  const std::uint16_t high = static_cast<std::uint16_t>(low + 1);
  const double d_low = std::fabs(x - static_cast<double>(bf16_to_f32(low)));
  const double d_high = std::fabs(static_cast<double>(bf16_to_f32(high)) - x);
  if (d_low < d_high) return low;
  if (d_high < d_low) return high;
  return (low & 1) ? high : low;
}

std::uint8_t f32_to_e4m3_satfinite(float x) {
  if (std::isnan(x)) return 0x7f;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(static_cast<double>(x));
  if (a == 0) return sign;
  int e = std::ilogb(a);                                // a in [2^e, 2^(e+1))
  if (e < -6) {                                         // subnormal: multiples of 2^-9
    const double m = std::nearbyint(std::ldexp(a, 9));  // round half to even (default mode)
    return static_cast<std::uint8_t>(
        sign | static_cast<std::uint8_t>(m));  // m == 8 is 0x08, the least normal
  }
  double m = std::nearbyint(std::ldexp(a, 3 - e));  // 8..16
  if (m == 16) {
    m = 8;
    ++e;
  }
  if (e > 8 || (e == 8 && m > 14)) return sign | 0x7e;  // beyond 448: saturate
  return static_cast<std::uint8_t>(sign | ((e + 7) << 3) | (static_cast<int>(m) - 8));
}

float e4m3_to_f32(std::uint8_t bits) {
  const float sign = bits & 0x80 ? -1.0f : 1.0f;
  const int exp = (bits >> 3) & 0xf, mant = bits & 7;
  if (exp == 15 && mant == 7) return std::numeric_limits<float>::quiet_NaN();
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -9);
  return sign * std::ldexp(1.0f + static_cast<float>(mant) / 8, exp - 7);
}

}  // namespace kk3::families
