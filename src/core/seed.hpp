#pragma once
// The seed of a run's random inputs: the one given, else one drawn now (odd, so never 0, which
// means "draw one" wherever a seed is an option).
#include <random>

namespace kk3 {

/// `given` when it is set (not 0), else a fresh odd seed from the system's random device.
inline unsigned long long seed_or_draw(unsigned long long given) {
  return given ? given : (std::random_device{}() | 1ull);
}

}  // namespace kk3
