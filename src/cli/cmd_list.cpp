// `kk3tune list`: the families in configs/, their modes, knobs and variant counts.
#include <nlohmann/json.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "families/registry.hpp"

namespace kk3::cli {
namespace {

struct list_options {
  std::string family;           ///< only this family
  bool all = false;             ///< include the example kernels
  bool variants = false;        ///< print every variant id
  std::string format = "text";  ///< --format text|json
};

/// One family as JSON: what the text lists, with every variant and its knob values.
nlohmann::ordered_json family_json(const families::family& f, const families::family_space& s) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["family"] = s.config.family;
  j["kind"] = f.is_example() ? "example" : f.is_test() ? "test" : "family";
  j["description"] = s.config.description;
  j["config"] = s.config.file.string();
  ordered_json modes = ordered_json::array();
  for (const auto& m : s.config.modes) {
    ordered_json defines = ordered_json::object();
    for (const auto& [k, v] : m.defines) defines[k] = v;
    modes.push_back({{"name", m.name}, {"defines", defines}});
  }
  j["modes"] = modes;
  const families::shape model = f.model_shape(1, s.config.modes.front(), {});
  ordered_json dims = ordered_json::array();
  for (const families::dimension& d : f.dimensions()) {
    dims.push_back({{"name", d.name},
                    {"label", d.label},
                    {"model", model.at(d.name)},
                    {"key", d.key},
                    {"planned", d.planned}});
  }
  j["dimensions"] = dims;
  ordered_json knobs = ordered_json::object();
  for (const auto& k : s.config.knobs) knobs[k.name] = k.values;
  j["knobs"] = knobs;
  ordered_json constraints = ordered_json::array();
  for (const auto& c : s.config.constraints) constraints.push_back(c.text());
  j["constraints"] = constraints;
  j["variants_per_mode"] = s.variants.size();
  ordered_json variants = ordered_json::array();
  for (const auto& v : s.variants) {
    ordered_json kv = ordered_json::object();
    for (const auto& [k, value] : v.knobs) kv[k] = value;
    if (v.is_reference) j["reference"] = v.id;
    variants.push_back({{"id", v.id}, {"knobs", kv}, {"reference", v.is_reference}});
  }
  j["variants"] = variants;
  return j;
}

// " x heads (H, 16 in the model; a plan or --shape chooses it) x ...": the model dimensions
// besides T, as the first mode's model shape has them.
std::string dimensions_text(const families::family& f, const space::mode& m) {
  const families::shape model = f.model_shape(1, m, {});
  std::string out;
  for (const families::dimension& d : f.dimensions()) {
    const std::string how = d.planned ? "a plan or --shape chooses it"
                            : d.key   ? "the mode sets it"
                                      : "the verifier varies it";
    out += " x " + d.name + " (" + d.label + ", " + std::to_string(model.at(d.name)) +
           " in the model" + (d.key && !d.planned ? " mode " + m.name : "") + "; " + how + ")";
  }
  return out;
}

int run_list(const global_options& global, const list_options& options) {
  const auto config_dir = find_config_dir(global.config_dir).dir;
  const auto selected = families::select_families(options.family, options.all);
  // Every config read before anything is printed: a broken one stops the list, not its middle.
  std::vector<families::family_space> spaces;
  for (const families::family* f : selected)
    spaces.push_back(families::load_family_space(*f, config_dir));
  if (options.format == "json") {
    nlohmann::ordered_json out = {{"kind", "list"}, {"families", nlohmann::ordered_json::array()}};
    for (std::size_t i = 0; i < selected.size(); ++i)
      out["families"].push_back(family_json(*selected[i], spaces[i]));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (selected.empty()) {
    std::cout << "no kernel families are registered yet (`kk3tune list --all` shows the example "
                 "kernels)\n";
    return 0;
  }
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const families::family* f = selected[i];
    const families::family_space& s = spaces[i];
    std::vector<std::string> modes;
    for (const auto& m : s.config.modes) modes.push_back(m.name);
    std::string reference;
    for (const auto& v : s.variants) {
      if (v.is_reference) reference = v.id;
    }
    std::cout << s.config.family
              << (f->is_example() ? " (example)"
                  : f->is_test()  ? " (test family)"
                                  : "")
              << ": " << s.config.description << "\n"
              << "  config:    " << s.config.file.string() << "\n"
              << "  modes:     " << join(modes, ", ") << "\n"
              << "  variants:  " << s.variants.size() << " per mode, "
              << s.variants.size() * modes.size() << " in all\n"
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
      for (const auto& v : s.variants)
        std::cout << "    " << v.id << (v.is_reference ? "  (reference)" : "") << "\n";
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto options = std::make_shared<list_options>();
  CLI::App* cmd =
      app.add_subcommand("list", "List the kernel families, their modes, knobs and variant counts");
  cmd->add_option("--family", options->family, "only this family");
  cmd->add_flag("--all", options->all, "include the example kernels");
  cmd->add_flag("--variants", options->variants, "print every variant id");
  add_text_or_json_option(cmd, options->format, "every family with its modes, knobs and variants");
  cmd->callback([&global, &exit_code, options] { exit_code = run_list(global, *options); });
}

}  // namespace kk3::cli
