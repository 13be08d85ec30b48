#include "families/family.hpp"

#include <map>
#include <utility>

#include "core/arch.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::families {

results::objective chain_after_persistent_gemm(std::string producer,
                                               results::consumer_model consumer) {
  results::objective o;
  o.mode = results::timing_mode::chain;
  o.chain.producer.stands_for = std::move(producer);
  o.chain.consumer = std::move(consumer);
  return o;
}

device::launch_config launch_config_of(const kk3tune::kernels::launch_settings& s) {
  device::launch_config c;
  c.grid = {s.grid.x, s.grid.y, s.grid.z};
  c.block = {s.block.x, s.block.y, s.block.z};
  c.cluster = {s.cluster.x, s.cluster.y, s.cluster.z};
  c.shared_bytes = s.shared_bytes;
  return c;
}

std::optional<dimension> family::find_dimension(const std::string& name) const {
  for (dimension& d : dimensions()) {
    if (d.name == name) return std::move(d);
  }
  return std::nullopt;
}

dims family::key_of(const shape& s) const {
  dims out;
  for (const dimension& k : key_dimensions()) out.emplace_back(k.name, s.at(k.name));
  return out;
}

std::vector<dimension> family::key_dimensions() const {
  std::vector<dimension> out;
  for (const dimension& d : dimensions()) {
    if (d.key) out.push_back(d);
  }
  return out;
}

planned_dims family::planned_of(const shape& s) const {
  planned_dims out;
  for (const dimension& d : dimensions()) {
    if (d.planned) out.emplace_back(d.name, std::vector<long long>{s.at(d.name)});
  }
  return out;
}

std::vector<shape> family::sweep_shapes(const space::mode& m, const planned_dims& planned) const {
  // Every combination of the planned values, the first dimension varying slowest.
  std::vector<dims> combos{{}};
  for (const auto& [name, values] : planned) {
    std::vector<dims> next;
    for (const dims& c : combos) {
      for (long long v : values) {
        dims d = c;
        d.emplace_back(name, v);
        next.push_back(std::move(d));
      }
    }
    combos = std::move(next);
  }
  std::vector<shape> out;
  for (const dims& given : combos) out.push_back(model_shape(1, m, given));
  return out;
}

void require_archs(const std::vector<const family*>& families,
                   const std::vector<std::string>& archs, const std::string& what) {
  for (const std::string& arch : archs) {
    std::map<std::pair<int, std::string>, std::vector<std::string>>
        too_old;  // by requirement (sm, why)
    for (const family* f : families) {
      const arch_requirement need = f->min_arch();
      if (arch_number(arch) < need.sm) too_old[{need.sm, need.why}].push_back(f->name());
    }
    if (too_old.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& [need, names] : too_old) {
      parts.push_back(join(names, ", ") + (names.size() == 1 ? " needs" : " need") + " sm_" +
                      std::to_string(need.first) + " or newer for " + need.second);
    }
    throw error(error_kind::usage,
                what + " " + arch + ": " + join(parts, "; ") + "; nothing was compiled");
  }
}

}  // namespace kk3::families
