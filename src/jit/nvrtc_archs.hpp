#pragma once
// GPU architecture names as NVRTC takes them ("sm_90a", "sm_100a").
#include <string>
#include <vector>

#include "core/arch.hpp"

namespace kk3::jit {

/// The arch names themselves are core's (core/arch.hpp).
using kk3::arch_for_compute_capability;
using kk3::arch_number;

/// Parses "sm_90a,sm_100a" and checks each against the archs this NVRTC supports; throws
/// error(usage) naming the unknown arch and listing the supported ones.
std::vector<std::string> parse_arch_list(const std::string& list);

}  // namespace kk3::jit
