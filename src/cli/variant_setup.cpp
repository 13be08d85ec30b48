#include "cli/variant_setup.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/seed.hpp"
#include "core/text.hpp"
#include "device/driver_api.hpp"
#include "families/limits.hpp"
#include "jit/requests.hpp"
#include "jit/toolkit.hpp"
#include "space/selection_filter.hpp"
#include "verify/unlaunchable.hpp"

namespace kk3::cli {
namespace {

/// Leaves out the variants the GPU cannot launch at the shape: under --variant all each with a
/// line on stderr, the others timed; a variant named on its own or in a list is an error
/// (usage: what was asked cannot run here), naming it and the limit it exceeds.
void drop_unlaunchable(loaded_variant& v, bool skip) {
  std::vector<loaded_kernel> kept;
  for (loaded_kernel& k : v.kernels) {
    const std::string why = verify::unlaunchable_reason(*v.space.impl, *k.variant, *v.mode, v.shape,
                                                        k.function, v.info());
    if (why.empty()) {
      kept.push_back(std::move(k));
      continue;
    }
    const std::string id = v.space.config.family + "/" + v.mode->name + "/" + k.variant->id;
    if (!skip) throw error(error_kind::usage, id + " is " + why + " (" + v.info().name + ")");
    std::cerr << "kk3tune: skipping " << id << ": " << why << " (" << v.info().name << ")\n";
  }
  if (kept.empty())
    throw error(error_kind::usage, "--variant all: " + v.describe() +
                                       ": no variant can be launched on " + v.info().name);
  v.kernels = std::move(kept);
}

}  // namespace

void add_shape_options(CLI::App* cmd, shape_options& o, bool lists) {
  const std::string values = lists ? "values" : "value";
  auto* shape = cmd->add_option(
      "--shape", o.shape,
      "a model dimension's " + values + ", NAME=" + (lists ? "V[,V...]" : "V") +
          " (repeatable; `kk3tune list` shows each family's dimensions; default: the model's)");
  shape->allow_extra_args(false);
  auto* heads = cmd->add_option(
      "--heads", o.heads, "head count" + std::string(lists ? "s" : "") + " H: --shape heads=...");
  auto* blocks = cmd->add_option(
      "--blocks", o.blocks,
      "block count" + std::string(lists ? "s" : "") + " NB: --shape blocks=..." +
          (lists ? " (attn_res: picks the modes with those NB)" : " (attn_res: the mode's NB)"));
  heads->check(positive_integer());  // a model has at least one head; NB may be 0 (write_nb0)
  blocks->check(non_negative_integer());
  for (auto* opt : {heads, blocks}) {
    if (lists) {
      opt->delimiter(',');
    } else {
      opt->expected(1);
    }
  }
}

families::planned_dims given_shapes(const families::family& f, const shape_options& o, bool lists) {
  families::planned_dims given;
  auto add = [&](const std::string& name, const std::vector<long long>& values,
                 const std::string& flag) {
    const std::optional<families::dimension> d = f.find_dimension(name);
    if (!d) {
      std::vector<std::string> names;
      for (const families::dimension& x : f.dimensions()) names.push_back(x.name);
      throw error(error_kind::usage,
                  flag + ": " + f.name() + " has no dimension " + name +
                      (names.empty() ? " (it has none)" : " (it has " + join(names, ", ") + ")"));
    }
    if (!lists && values.size() != 1) throw error(error_kind::usage, flag + ": expected one value");
    for (long long v : values) {
      if (v < d->least)
        throw error(error_kind::usage,
                    flag + ": " + std::to_string(v) + " is below " + std::to_string(d->least));
    }
    if (std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == name; })) {
      throw error(error_kind::usage, flag + ": " + name + " given twice");
    }
    given.emplace_back(name, values);
  };
  if (!o.heads.empty()) add("heads", o.heads, "--heads");
  if (!o.blocks.empty()) add("blocks", o.blocks, "--blocks");
  for (const std::string& text : o.shape) {
    const auto eq = text.find('=');
    const std::string name = text.substr(0, eq);
    if (eq == std::string::npos || name.empty() || eq + 1 == text.size()) {
      throw error(error_kind::usage,
                  "--shape " + text + ": expected NAME=" + (lists ? "V[,V...]" : "V"));
    }
    std::vector<long long> values;
    for (const std::string& v : split(text.substr(eq + 1), ',')) {
      const std::optional<long long> n = parse_integer(v);
      if (!n) throw error(error_kind::usage, "--shape " + text + ": '" + v + "' is not an integer");
      values.push_back(*n);
    }
    add(name, values, "--shape " + name);
  }
  // In the family's order of its dimensions, so that every spelling gives the same shapes.
  families::planned_dims ordered;
  for (const families::dimension& d : f.dimensions()) {
    for (const auto& g : given) {
      if (g.first == d.name) ordered.push_back(g);
    }
  }
  return ordered;
}

std::string shape_flag(const shape_options& o, const std::string& name) {
  if (name == "heads" && !o.heads.empty()) return "--heads";
  if (name == "blocks" && !o.blocks.empty()) return "--blocks";
  return "--shape " + name;
}

void add_variant_options(CLI::App* cmd, variant_options& o, const std::string& variant_help) {
  cmd->add_option("--family", o.family, "kernel family (see `kk3tune list --all`)")->required();
  cmd->add_option("--mode", o.mode, "the family's mode (default: its first)");
  cmd->add_option("--variant", o.variant, variant_help);
  cmd->add_option("--tokens,-T", o.tokens, "token count T")->check(positive_integer());
  add_shape_options(cmd, o.shape, false);
  cmd->add_option("--seed", o.seed, "seed of the random inputs (default: drawn and printed)");
  add_cache_options(cmd, o.cache);
}

std::string loaded_variant::describe() const {
  std::string d =
      space.config.family + "/" + mode->name + "/" +
      (kernels.size() == 1 ? variant().id : std::to_string(kernels.size()) + " variants") +
      " T=" + std::to_string(shape.tokens);
  const std::string dims = families::shape_text(space.impl->key_of(shape));
  return dims.empty() ? d : d + " " + dims;
}

std::string loaded_variant::shape_range_name() const {
  std::string n = mode->name + "-T" + std::to_string(shape.tokens);
  return n + families::shape_suffix(space.impl->key_of(shape));
}

loaded_variant load_variant(const global_options& global, const variant_options& o,
                            unsigned workspaces) {
  loaded_variant v;
  refuse_timing_mode(o.mode, o.family, global.config_dir);
  const located_dir kernels = find_kernel_dir(global.kernel_dir);
  v.space = families::load_family_space(families::find_family(o.family),
                                        find_config_dir(global.config_dir).dir);
  require_kernel_source(kernels, v.space.config.source, o.family);
  v.mode =
      o.mode.empty() ? &v.space.config.modes.front() : &space::find_mode(v.space.config, o.mode);
  const std::vector<const space::variant*> chosen =
      space::select_variants(v.space.variants, v.space.config, o.variant);
  if (o.single && chosen.size() > 1) {
    throw error(error_kind::usage, "--variant " + o.variant + ": selects " +
                                       std::to_string(chosen.size()) + " variants of " + o.family +
                                       "; this command takes one (e.g. " + chosen.front()->id +
                                       ")");
  }
  families::dims given;
  for (const auto& [name, values] : given_shapes(*v.space.impl, o.shape, false))
    given.emplace_back(name, values.front());
  v.shape = v.space.impl->model_shape(o.tokens, *v.mode, given);
  v.seed = seed_or_draw(o.seed);
  // Bad input before any GPU work: a shape beyond the family's buffers, a missing toolkit.
  families::check_tokens(*v.space.impl, *v.mode, o.tokens, given, "--tokens",
                         given.empty() ? "--tokens" : shape_flag(o.shape, given.front().first));
  jit::require_cuda_include_dir();

  v.gpu = std::make_unique<session::gpu_session>(kernels.dir, o.cache.cache_dir, o.cache.no_cache);
  v.kernels = jit::compile_and_load(v.gpu->engine(), v.space.config, *v.mode, chosen, v.info().arch,
                                    v.gpu->kernel_dir());
  for (const loaded_kernel& k : v.kernels) {
    if (k.ok()) continue;
    std::string options;
    for (const auto& opt : k.compiled.options) options += " " + opt;
    throw error(error_kind::compile, k.compiled.label + " failed to compile\noptions:" + options +
                                         "\n" + k.compiled.log);
  }
  // A set (all, a glob, a knob filter) leaves out what cannot run here; a variant named is an
  // error.
  drop_unlaunchable(v, o.variant == "all" || space::is_glob(o.variant) ||
                           o.variant.find('=') != std::string::npos);
  add_workspaces(v, workspaces);
  return v;
}

void add_workspaces(loaded_variant& v, unsigned count) {
  while (v.workspaces.size() < count) {
    v.workspaces.push_back(
        v.space.impl->random_workspace(v.shape, *v.mode, v.seed + v.workspaces.size()));
  }
}

}  // namespace kk3::cli
