#pragma once
// Exact CPU emulation of the GPU's number conversions (SPEC 1.3): bf16 and e4m3 round to
// nearest even; e4m3 saturates to +-448 (satfinite). The CPU references use these.
#include <cstdint>

namespace kk3::families {

/// The float a bf16 bit pattern stands for (exact).
float bf16_to_f32(std::uint16_t bits);
/// Round to nearest even; NaN becomes the canonical 0x7fff (as cvt.rn.bf16.f32).
std::uint16_t f32_to_bf16_rn(float x);
/// bf16 of a double, rounded once (to nearest, ties to even): the float64 reference's output.
std::uint16_t f64_to_bf16_rn(double x);
/// e4m3 of x, round to nearest even, saturating to +-448 (infinities too); NaN becomes
/// 0x7f (as cvt.rn.satfinite.e4m3x2.f32); -0 keeps its sign (0x80).
std::uint8_t f32_to_e4m3_satfinite(float x);
/// The float an e4m3 bit pattern stands for (0x7f / 0xff are NaN).
float e4m3_to_f32(std::uint8_t bits);

}  // namespace kk3::families
