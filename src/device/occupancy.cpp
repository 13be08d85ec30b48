#include "device/occupancy.hpp"

#include <algorithm>
#include <climits>

namespace kk3::device {
namespace {

long long round_up(long long x, long long unit) {
  return (x + unit - 1) / unit * unit;
}

long long divide_up(long long x, long long unit) {
  return (x + unit - 1) / unit;
}

}  // namespace

std::optional<sm_target> target_for_arch(const std::string& arch) {
  // Hopper and Blackwell (sm_100) share the per-SM limits; the GPUs differ in their SM count.
  sm_target t;
  if (arch == "sm_90a" || arch == "sm_90") {
    t.name = "H200";
    t.sm_count = 132;
  } else if (arch == "sm_100a" || arch == "sm_100") {
    t.name = "B200";
    t.sm_count = 148;
  } else {
    return std::nullopt;
  }
  t.arch = arch;
  return t;
}

occupancy theoretical_occupancy(const kernel_footprint& k, const sm_target& t) {
  occupancy o;
  if (k.threads_per_cta <= 0 || k.threads_per_cta > t.max_threads_per_cta) {
    o.limiter = "threads per CTA " + std::to_string(k.threads_per_cta) + " (at most " +
                std::to_string(t.max_threads_per_cta) + ")";
    return o;
  }
  const long long warps = divide_up(k.threads_per_cta, 32);
  o.by_warps = static_cast<int>(t.max_warps_per_sm / warps);
  o.by_ctas = t.max_ctas_per_sm;

  // Registers: a warp's registers round up to the allocation unit; each of the SM's sub-partitions
  // holds whole warps. A CTA must fit the per-CTA limit with its warps rounded up to the
  // sub-partitions (the hardware's check).
  const long long per_warp = round_up(static_cast<long long>(k.registers) * 32, t.register_unit);
  if (k.registers > t.max_registers_per_thread ||
      per_warp * round_up(warps, t.sub_partitions) > t.registers_per_sm) {
    o.by_registers = 0;
  } else if (per_warp == 0) {
    o.by_registers = INT_MAX;
  } else {
    const long long warps_per_partition = t.registers_per_sm / t.sub_partitions / per_warp;
    o.by_registers = static_cast<int>(warps_per_partition * t.sub_partitions / warps);
  }

  // Shared memory: static + dynamic + the system's reserve, in allocation units.
  const long long shared =
      round_up(k.static_shared + k.dynamic_shared + t.reserved_shared_per_cta, t.shared_unit);
  if (shared > t.max_shared_per_cta + t.reserved_shared_per_cta) {
    o.by_shared = 0;
  } else {
    o.by_shared = static_cast<int>(t.shared_per_sm / shared);
  }

  o.ctas_per_sm = std::min({o.by_warps, o.by_registers, o.by_shared, o.by_ctas});
  o.warps_per_sm = static_cast<int>(o.ctas_per_sm * warps);
  o.fraction = static_cast<double>(o.warps_per_sm) / t.max_warps_per_sm;
  if (o.ctas_per_sm == 0) {
    o.limiter = o.by_registers == 0
                    ? "registers " + std::to_string(k.registers) + " x " +
                          std::to_string(k.threads_per_cta) + " threads do not fit"
                    : "shared memory " + std::to_string(k.static_shared + k.dynamic_shared) +
                          " bytes (at most " + std::to_string(t.max_shared_per_cta) + ")";
    return o;
  }
  const std::pair<int, const char*> limits[] = {{o.by_warps, "warps"},
                                                {o.by_registers, "registers"},
                                                {o.by_shared, "shared memory"},
                                                {o.by_ctas, "CTAs"}};
  for (const auto& [ctas, name] : limits) {
    if (ctas == o.ctas_per_sm) o.limiter += (o.limiter.empty() ? "" : "+") + std::string(name);
  }
  return o;
}

}  // namespace kk3::device
