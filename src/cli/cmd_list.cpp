// `kk3tune list`: the families in configs/, their modes, knobs and variant counts.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "families/registry.hpp"

namespace kk3::cli {
namespace {

struct list_options {
  std::string family;     ///< only this family
  bool all = false;       ///< include the example kernels
  bool variants = false;  ///< print every variant id
};

// " x heads (H, 16 in the model; a plan or --shape chooses it) x ...": the model dimensions
// besides T, as the first mode's model shape has them.
std::string dimensions_text(const families::family& f, const space::mode& m) {
  const families::shape model = f.model_shape(1, m, {});
  std::string out;
  for (const families::dimension& d : f.dimensions()) {
    const std::string how = d.planned ? "a plan or --shape chooses it" : d.key ? "the mode sets it" : "the verifier varies it";
    out += " x " + d.name + " (" + d.label + ", " + std::to_string(model.at(d.name)) + " in the model" +
           (d.key && !d.planned ? " mode " + m.name : "") + "; " + how + ")";
  }
  return out;
}

int run_list(const global_options& global, const list_options& options) {
  const auto config_dir = find_config_dir(global.config_dir).dir;
  const auto selected = families::select_families(options.family, options.all);
  if (selected.empty()) {
    std::cout << "no kernel families are registered yet (`kk3tune list --all` shows the example kernels)\n";
    return 0;
  }
  for (const families::family* f : selected) {
    const families::family_space s = families::load_family_space(*f, config_dir);
    std::vector<std::string> modes;
    for (const auto& m : s.config.modes) modes.push_back(m.name);
    std::string reference;
    for (const auto& v : s.variants) {
      if (v.is_reference) reference = v.id;
    }
    std::cout << s.config.family << (f->is_example() ? " (example)" : f->is_test() ? " (test family)" : "") << ": " << s.config.description << "\n"
              << "  config:    " << s.config.file.string() << "\n"
              << "  modes:     " << join(modes, ", ") << "\n"
              << "  variants:  " << s.variants.size() << " per mode, " << s.variants.size() * modes.size()
              << " in all\n"
              << "  reference: " << reference << "\n"
              << "  shape:     T" << dimensions_text(*f, s.config.modes.front()) << "\n"
              << "  knobs:\n";
    for (const auto& k : s.config.knobs) {
      std::vector<std::string> values;
      for (long long v : k.values) values.push_back(std::to_string(v));
      std::cout << "    " << k.name << ": " << join(values, ", ") << "\n";
    }
    for (const auto& c : s.config.constraints) std::cout << "  constraint: " << c.text() << "\n";
    if (options.variants) {
      std::cout << "  variant ids:\n";
      for (const auto& v : s.variants) std::cout << "    " << v.id << (v.is_reference ? "  (reference)" : "") << "\n";
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto options = std::make_shared<list_options>();
  CLI::App* cmd = app.add_subcommand("list", "List the kernel families, their modes, knobs and variant counts");
  cmd->add_option("--family", options->family, "only this family");
  cmd->add_flag("--all", options->all, "include the example kernels");
  cmd->add_flag("--variants", options->variants, "print every variant id");
  cmd->callback([&global, &exit_code, options] { exit_code = run_list(global, *options); });
}

}  // namespace kk3::cli
