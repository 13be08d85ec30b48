#pragma once
// Reads a kernel's resource use from the cubin itself (ELF .nv.info attributes and sections).
//
// ptxas -v output in the NVRTC log is not dependable: on the H200 machine NVRTC returned an
// empty log for the same program and options that logged on the build machine. The cubin
// always carries the register count, the per-thread frame (local memory, spills included) and
// the static shared memory, so those come from here; spill byte counts exist only in the log.
#include <string>

#include "jit/compile_types.hpp"

namespace kk3::jit {

/// Registers, frame (stack_bytes) and static shared memory of `lowered_name` in `cubin`;
/// spill fields stay -1. Fields the cubin does not have stay -1; a malformed cubin gives all -1.
[[nodiscard]] resource_usage read_cubin_resources(const std::string& cubin,
                                                  const std::string& lowered_name);

}  // namespace kk3::jit
