#pragma once
// The check every stage makes before a variant's first launch at a shape: whether the GPU can
// launch it there at all (device::launch_problem with the family's geometry). A variant that it
// cannot is recorded as `unlaunchable` with the limit it exceeds; it is not a failure.
#include <string>

#include "device/device_info.hpp"
#include "families/family.hpp"

namespace kk3::verify {

/// Why variant `v` of family `f` in mode `m` cannot be launched at shape `s` on the GPU `info`
/// describes, as "unlaunchable at T65-H16: needs 240 KiB of shared memory per CTA (...), the
/// device allows 227 KiB"; empty when it can. Throws error(device) when a driver query fails.
[[nodiscard]] std::string unlaunchable_reason(const families::family& f, const space::variant& v,
                                              const space::mode& m, const families::shape& s,
                                              CUfunction fn, const device::device_info& info);

/// unlaunchable_reason for a variant that is about to be verified or measured: throws
/// error(verify) naming the family, mode and reason when `v` is the reference variant, which
/// nothing can be verified or selected without.
[[nodiscard]] std::string unlaunchable_unless_reference(const families::family& f,
                                                        const space::variant& v,
                                                        const space::mode& m,
                                                        const families::shape& s, CUfunction fn,
                                                        const device::device_info& info);

}  // namespace kk3::verify
