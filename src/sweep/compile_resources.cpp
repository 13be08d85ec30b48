#include "sweep/compile_resources.hpp"

#include <algorithm>

#include "device/occupancy.hpp"

namespace kk3::sweep {

results::arch_resources compile_resources(const jit::compile_result& c,
                                          const device::launch_config& launch) {
  results::arch_resources r;
  r.arch = c.arch;
  r.registers = c.usage.registers;
  r.spill_store_bytes = c.usage.spill_store_bytes;
  r.spill_load_bytes = c.usage.spill_load_bytes;
  r.shared_bytes = c.usage.shared_bytes;
  r.stack_bytes = c.usage.stack_bytes;
  r.threads_per_cta = static_cast<int>(launch.block.volume());
  r.dynamic_shared_bytes = launch.shared_bytes;
  r.cluster_ctas = static_cast<int>(launch.cluster.volume());
  const std::optional<device::sm_target> target = device::target_for_arch(c.arch);
  if (!target) return r;
  r.target = target->name;
  r.sm_count = target->sm_count;
  const device::occupancy o =
      device::theoretical_occupancy({std::max(r.registers, 0), std::max(r.shared_bytes, 0),
                                     r.dynamic_shared_bytes, r.threads_per_cta},
                                    *target);
  r.ctas_per_sm = o.ctas_per_sm;
  r.warps_per_sm = o.warps_per_sm;
  r.occupancy = o.fraction;
  r.limiter = o.limiter;
  return r;
}

}  // namespace kk3::sweep
