#pragma once
// GPU architecture names ("sm_90a", "sm_100a"): what a device's compute capability compiles for,
// and an arch's number. Which archs a compiler knows is jit's (jit/nvrtc_archs.hpp).
#include <string>

namespace kk3 {

/// The arch to compile for on a device of this compute capability: the arch-specific
/// ("a") target from sm_90 on, so Hopper and Blackwell features (wgmma, setmaxnreg) are usable.
[[nodiscard]] std::string arch_for_compute_capability(int major, int minor);

/// The numeric part of an arch name: "sm_100a" -> 100. Throws error(usage) if malformed.
[[nodiscard]] int arch_number(const std::string& arch);

}  // namespace kk3
