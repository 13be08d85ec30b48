// `kk3tune profile`: exactly N launches of one variant between cuProfilerStart and
// cuProfilerStop, inside one NVTX range nest profile -> family -> shape -> variant, for
//   nsys profile --capture-range=cudaProfilerApi ...   and   ncu --nvtx --nvtx-include
//   "kk3tune@profile/" ...
// Warm-up launches (module load, first launch) happen before the capture range and outside
// the NVTX range, so a profiler sees the N launches and nothing else.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/variant_setup.hpp"
#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "device/check.hpp"
#include "device/launch.hpp"

namespace kk3::cli {
namespace {

struct profile_options {
  variant_options target;
  unsigned iterations = 10;
  unsigned warmup = 3;
  bool no_pdl = false;
};

int run_profile(const global_options& global, const profile_options& o) {
  loaded_variant v = load_variant(global, o.target);
  if (v.kernels.size() != 1) throw error(error_kind::usage, "--variant: profile runs one variant");
  const loaded_kernel& k = v.kernels.front();
  device::launch_config config = v.space.impl->geometry(v.variant(), *v.mode, v.shape);
  config.pdl = !o.no_pdl;
  const device::stream s;
  void** args = v.workspaces.front()->args();
  for (unsigned i = 0; i < o.warmup; ++i) device::launch(k.function, s.get(), config, args);
  s.synchronize();

  KK3_CU(cuProfilerStart);
  {
    nvtx::scoped_range profile_range("profile", v.shape.tokens);
    nvtx::scoped_range family_range(v.space.config.family, v.shape.tokens);
    nvtx::scoped_range shape_range(v.shape_range_name(), v.shape.tokens);
    nvtx::scoped_range variant_range(v.variant().id, v.shape.tokens);
    for (unsigned i = 0; i < o.iterations; ++i) device::launch(k.function, s.get(), config, args);
    s.synchronize();
  }
  KK3_CU(cuProfilerStop);
  std::cout << "profiled " << o.iterations << " launches of " << v.describe() << " (kernel "
            << k.compiled.lowered_name << ", grid " << config.grid.x << "x" << config.grid.y << "x"
            << config.grid.z << ", block " << config.block.x << ", pdl "
            << (config.pdl ? "on" : "off") << ", seed " << v.seed << ")\n"
            << "NVTX: domain kk3tune, ranges profile/" << v.space.config.family << "/"
            << v.shape_range_name() << "/" << v.variant().id << "\n";
  return 0;
}

}  // namespace

void add_profile_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<profile_options>();
  CLI::App* cmd = app.add_subcommand("profile",
                                     "Run exactly N launches of one variant inside "
                                     "cuProfilerStart/Stop and one NVTX range, for nsys and ncu");
  add_variant_options(cmd, o->target,
                      "the one variant to profile: an id, 'reference' (default), or a glob or "
                      "NAME=VALUE filter that selects one");
  o->target.single = true;
  cmd->add_option("--iterations,-n", o->iterations, "launches to profile (default 10)")
      ->check(positive_integer());
  cmd->add_option("--warmup", o->warmup, "launches before the profiled range (default 3)");
  cmd->add_flag("--no-pdl", o->no_pdl, "launch without programmatic dependent launch");
  cmd->callback([&global, &exit_code, o] { exit_code = run_profile(global, *o); });
}

}  // namespace kk3::cli
