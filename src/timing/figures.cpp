#include "timing/figures.hpp"

#include <algorithm>

#include "families/registry.hpp"
#include "jit/loaded_kernels.hpp"

namespace kk3::timing {
namespace {

/// A kernel without parameters.
class no_arguments final : public families::workspace {
 public:
  void** args() override { return nullptr; }
};

}  // namespace

double measure_copy_ceiling(const jit::jit_engine& engine, const device::device_info& info,
                            const timer& t, const std::filesystem::path& kernel_dir,
                            const std::filesystem::path& config_dir) {
  const families::family& copy = families::find_family("copy_example");
  const families::family_space space = families::load_family_space(copy, config_dir);
  const space::mode& m = space.config.modes.front();
  const families::shape s = copy.model_shape(16384, m, {});
  const auto ws = copy.random_workspace(s, m, 1);
  std::vector<const space::variant*> variants;
  for (const auto& v : space.variants) variants.push_back(&v);
  const std::vector<jit::loaded_kernel> kernels =
      jit::compile_and_load(engine, space.config, m, variants, info.arch, kernel_dir);
  std::vector<candidate> candidates;
  for (const jit::loaded_kernel& k : kernels) {
    if (k.ok())
      candidates.push_back(make_candidate(copy, *k.variant, m, s, k.function, {ws.get()}));
  }
  if (candidates.empty()) return 0;
  timing_options o;
  o.stop.max_time_s = 0.05;
  double best = 0;
  for (const auto& r : t.measure(candidates, o))
    best = std::max(best, r.bytes_moved / (r.stats.median * 1e-6) / 1e12);
  return best;
}

double measure_empty_kernel(const timer& t, const helper_kernels& helpers) {
  no_arguments none;
  candidate c;
  c.label = "empty_kernel";
  c.function = helpers.empty();
  c.config.block.x = 32;
  c.workspaces = {&none};
  timing_options o;
  o.stop.max_time_s = 0.05;
  return t.measure({c}, o).front().stats.median;
}

}  // namespace kk3::timing
