#pragma once
// An untimed sweep's resource report of one compile (results/model.hpp: arch_resources): the
// cubin's registers, spills, shared memory and stack, the launch the family would make at the
// record's shape, and the theoretical occupancy on the arch's named GPU (device/occupancy.hpp).
#include "device/launch.hpp"
#include "jit/compile_types.hpp"
#include "results/model.hpp"

namespace kk3::sweep {

/// The resources of compile `c` (which succeeded) launched with `launch`.
[[nodiscard]] results::arch_resources compile_resources(const jit::compile_result& c,
                                                        const device::launch_config& launch);

}  // namespace kk3::sweep
