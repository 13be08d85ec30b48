#pragma once
// GPU architecture names as NVRTC takes them ("sm_90a", "sm_100a").
#include <string>
#include <vector>

namespace kk3::jit {

/// The arch to compile for on a device of this compute capability: the arch-specific
/// ("a") target from sm_90 on, so Hopper and Blackwell features (wgmma, setmaxnreg) are usable.
std::string arch_for_compute_capability(int major, int minor);

/// Parses "sm_90a,sm_100a" and checks each against the archs this NVRTC supports; throws
/// error(usage) naming the unknown arch and listing the supported ones.
std::vector<std::string> parse_arch_list(const std::string& list);

/// The numeric part of an arch name: "sm_100a" -> 100. Throws error(usage) if malformed.
int arch_number(const std::string& arch);

}  // namespace kk3::jit
