#include "verify/tolerance.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "families/numerics.hpp"

namespace kk3::verify {
namespace {

/// bf16 bits on a line where neighbours differ by one (negative values mirrored, -0 = +0).
int ordered_bf16(std::uint16_t b) {
  return b & 0x8000 ? -static_cast<int>(b & 0x7fff) : static_cast<int>(b);
}

}  // namespace

double bf16_ulp(double x) {
  const double a = std::fabs(x);
  if (!std::isfinite(a)) return std::numeric_limits<double>::infinity();
  if (a < 0x1p-126) return 0x1p-133;  // zero and bf16's subnormals: one spacing, 2^-126 / 2^7
  return std::ldexp(1.0, std::ilogb(a) - 7);
}

double bound_ratio(std::uint16_t got, double x, double m) {
  if (!std::isfinite(x)) {
    return families::f64_to_bf16_rn(x) == got ? 0.0 : std::numeric_limits<double>::infinity();
  }
  const double g = static_cast<double>(families::bf16_to_f32(got));   // exact
  if (std::isnan(g)) return std::numeric_limits<double>::infinity();  // a poisoned element
  return std::fabs(g - x) / (bf16_ulp(x) + k_term_factor * m);
}

double bound_figures::exact_share() const {
  return elements ? static_cast<double>(exact) / static_cast<double>(elements) : 1.0;
}

bound_figures bound_check(const std::uint16_t* got, const double* x, const double* m,
                          std::size_t n) {
  bound_figures f;
  f.elements = n;
  bool inexact_seen = false;
  for (std::size_t i = 0; i < n; ++i) {
    const int ulps = std::abs(ordered_bf16(got[i]) - ordered_bf16(families::f64_to_bf16_rn(x[i])));
    if (ulps == 0) {
      ++f.exact;
    } else if (!inexact_seen) {
      inexact_seen = true;
      f.first_inexact = i;
    }
    if (ulps > f.max_ulps) f.max_ulps = ulps;
    const double r = bound_ratio(got[i], x[i], m[i]);
    if (r > f.worst_ratio) {
      f.worst_ratio = r;
      f.worst_at = i;
    }
    if (r > 1.0 && !f.over) {
      f.over = true;
      f.first_over = i;
      f.first_over_ratio = r;
    }
  }
  return f;
}

}  // namespace kk3::verify
