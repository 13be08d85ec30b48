#pragma once
// SPEC 1.3's accuracy bound for an output that is not held bit for bit (attn_res's `out`): per
// element |out - x| <= ulp_bf16(x) + 2^-12 m, where x is the float64 result before rounding and
// m the magnitude of the terms that sum to it (scaled as x is), and at least 99.9% of the
// elements equal bf16(x). The arithmetic lives here, apart from the GPU verifier, so that it can
// be tested on hand-made values and on CPU evaluations of a family's formula.
#include <cstddef>
#include <cstdint>

namespace kk3::verify {

/// The share of a bounded tensor's elements that must equal bf16(x) (SPEC 1.3).
constexpr double k_min_exact_share = 0.999;
/// The bound's factor on the terms' magnitude: 2^-12, 16 times finer than bf16's 2^-8.
constexpr double k_term_factor = 0x1p-12;

/// The spacing of bf16 numbers at |x|: 2^(floor(log2 |x|) - 7) for a normal x, the subnormal
/// spacing 2^-133 for a tiny or zero x; infinite for a non-finite x.
double bf16_ulp(double x);

/// |got - x| / (ulp_bf16(x) + 2^-12 m) for the bf16 `got`: at most 1.0 within the bound. A
/// non-finite x (which no random input produces) allows only bf16(x) itself: 0 or infinity.
double bound_ratio(std::uint16_t got, double x, double m);

/// What bound_check found over a tensor's elements.
struct bound_figures {
  std::size_t elements = 0;       ///< elements checked
  std::size_t exact = 0;          ///< elements equal to bf16(x) (+0 and -0 count as equal)
  int max_ulps = 0;               ///< the largest distance from bf16(x), in bf16 ulps
  double worst_ratio = 0;         ///< the largest bound_ratio (1.0 is the limit)
  std::size_t worst_at = 0;       ///< where worst_ratio is
  bool over = false;              ///< some element's ratio exceeds 1
  std::size_t first_over = 0;     ///< the first such element (with `over`)
  double first_over_ratio = 0;    ///< its ratio
  std::size_t first_inexact = 0;  ///< the first element not equal to bf16(x), if any

  /// exact / elements (1 for no elements).
  double exact_share() const;
  /// Within SPEC 1.3's bound: no ratio above 1 and at least k_min_exact_share exact.
  [[nodiscard]] bool passes() const { return !over && exact_share() >= k_min_exact_share; }
};

/// Holds the `n` bf16 values `got` to the bound around the float64 values `x` with term
/// magnitudes `m` (one each per element).
[[nodiscard]] bound_figures bound_check(const std::uint16_t* got, const double* x, const double* m,
                                        std::size_t n);

}  // namespace kk3::verify
