#include "cli/variant_setup.hpp"

#include <iostream>
#include <random>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "device/driver_api.hpp"
#include "families/limits.hpp"
#include "jit/plan.hpp"
#include "jit/toolkit.hpp"
#include "verify/unlaunchable.hpp"

namespace kk3::cli {
namespace {

/// Leaves out the variants the GPU cannot launch at the shape: under --variant all each with a
/// line on stderr, the others timed; a variant named on its own or in a list is an error
/// (usage: what was asked cannot run here), naming it and the limit it exceeds.
void drop_unlaunchable(loaded_variant& v, bool skip) {
  std::vector<loaded_kernel> kept;
  for (loaded_kernel& k : v.kernels) {
    const std::string why = verify::unlaunchable_reason(*v.space.impl, *k.variant, *v.mode, v.shape, k.function, v.info);
    if (why.empty()) {
      kept.push_back(std::move(k));
      continue;
    }
    const std::string id = v.space.config.family + "/" + v.mode->name + "/" + k.variant->id;
    if (!skip) throw error(error_kind::usage, id + " is " + why + " (" + v.info.name + ")");
    std::cerr << "kk3tune: skipping " << id << ": " << why << " (" << v.info.name << ")\n";
  }
  if (kept.empty()) throw error(error_kind::usage, "--variant all: " + v.describe() + ": no variant can be launched on " + v.info.name);
  v.kernels = std::move(kept);
}

}  // namespace

void add_variant_options(CLI::App* cmd, variant_options& o) {
  cmd->add_option("--family", o.family, "kernel family (see `kk3tune list --all`)")->required();
  cmd->add_option("--mode", o.mode, "the family's mode (default: its first)");
  cmd->add_option("--variant", o.variant, "variant id or 'reference' (default); time also takes a comma list or 'all'");
  cmd->add_option("--tokens,-T", o.tokens, "token count T")->check(positive_integer());
  cmd->add_option("--heads", o.heads, "head count H, for families with heads")->check(CLI::NonNegativeNumber);
  cmd->add_option("--blocks", o.blocks, "block count NB, for families with blocks")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o.seed, "seed of the random inputs (default: drawn and printed)");
  add_cache_options(cmd, o.cache);
}

std::vector<const space::variant*> choose_variants(const families::family_space& space, const std::string& list) {
  std::vector<const space::variant*> chosen;
  if (list == "all") {
    for (const auto& var : space.variants) chosen.push_back(&var);
  } else {
    for (const std::string& id : split(list, ',')) chosen.push_back(&space::find_variant(space.variants, space.config, id));
  }
  if (chosen.empty()) throw error(error_kind::usage, "--variant: expected an id, a comma list or 'all'");
  return chosen;
}

std::string loaded_variant::describe() const {
  std::string d = space.config.family + "/" + mode->name + "/" + (kernels.size() == 1 ? variant().id : std::to_string(kernels.size()) + " variants") +
                  " T=" + std::to_string(shape.tokens);
  if (shape.heads) d += " H=" + std::to_string(shape.heads);
  if (shape.blocks) d += " NB=" + std::to_string(shape.blocks);
  return d;
}

std::string loaded_variant::shape_range_name() const {
  std::string n = mode->name + "-T" + std::to_string(shape.tokens);
  if (shape.heads) n += "-H" + std::to_string(shape.heads);
  if (shape.blocks) n += "-NB" + std::to_string(shape.blocks);
  return n;
}

loaded_variant load_variant(const global_options& global, const variant_options& o, unsigned workspaces) {
  loaded_variant v;
  v.kernel_dir = find_kernel_dir(global.kernel_dir).dir;
  v.space = families::load_family_space(families::find_family(o.family), find_config_dir(global.config_dir).dir);
  v.mode = o.mode.empty() ? &v.space.config.modes.front() : &space::find_mode(v.space.config, o.mode);
  const std::vector<const space::variant*> chosen = choose_variants(v.space, o.variant);
  v.shape = v.space.impl->model_shape(o.tokens, o.heads, o.blocks);
  v.seed = o.seed ? o.seed : std::random_device{}() | 1ull;
  // Bad input before any GPU work: a shape beyond the family's buffers, a missing toolkit.
  families::check_tokens(*v.space.impl, *v.mode, o.tokens, o.heads, o.blocks, "--tokens");
  jit::require_cuda_include_dir();

  v.info = device::first_gpu();
  v.context = std::make_unique<device::context>(0);

  v.engine = jit::make_jit_engine(v.kernel_dir, o.cache.cache_dir, o.cache.no_cache);
  v.kernels = jit::compile_and_load(*v.engine, v.space.config, *v.mode, chosen, v.info.arch, v.kernel_dir);
  for (const loaded_kernel& k : v.kernels) {
    if (k.ok()) continue;
    std::string options;
    for (const auto& opt : k.compiled.options) options += " " + opt;
    throw error(error_kind::compile, k.compiled.label + " failed to compile\noptions:" + options + "\n" + k.compiled.log);
  }
  drop_unlaunchable(v, o.variant == "all");
  add_workspaces(v, workspaces);
  return v;
}

void add_workspaces(loaded_variant& v, unsigned count) {
  while (v.workspaces.size() < count) {
    v.workspaces.push_back(v.space.impl->make_workspace(v.shape, *v.mode, v.seed + v.workspaces.size()));
  }
}

}  // namespace kk3::cli
