#include "verify/unlaunchable.hpp"

#include "core/error.hpp"
#include "device/launchability.hpp"
#include "verify/verifier.hpp"

namespace kk3::verify {

std::string unlaunchable_reason(const families::family& f, const space::variant& v,
                                const space::mode& m, const families::shape& s, CUfunction fn,
                                const device::device_info& info) {
  const std::string problem = device::launch_problem(fn, f.geometry(v, m, s), info);
  return problem.empty() ? problem : "unlaunchable at " + shape_name(s) + ": " + problem;
}

std::string unlaunchable_unless_reference(const families::family& f, const space::variant& v,
                                          const space::mode& m, const families::shape& s,
                                          CUfunction fn, const device::device_info& info) {
  std::string why = unlaunchable_reason(f, v, m, s, fn, info);
  if (!why.empty() && v.is_reference) {
    throw error(error_kind::verify, f.name() + "/" + m.name + ": the reference variant " + v.id +
                                        " is " + why +
                                        ": nothing can be verified or selected without it");
  }
  return why;
}

}  // namespace kk3::verify
