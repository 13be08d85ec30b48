// `kk3tune verify`: every variant of a family (or those --variant lists), every mode (or one),
// against the CPU reference (bit for bit, or within SPEC 1.3's bound: attn_res's out) and bit
// for bit against the reference variant, at the edge shapes and the requested ones, with the
// PDL hazard check. Exit 1 if a shipped variant fails; a variant the GPU cannot launch at some
// shape is listed as unlaunchable with its reason, not a failure.
#include <algorithm>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/variant_setup.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/seed.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "device/handles.hpp"
#include "families/limits.hpp"
#include "families/registry.hpp"
#include "jit/toolkit.hpp"
#include "results/codec.hpp"
#include "session/gpu_session.hpp"
#include "space/selection_filter.hpp"
#include "verify/verifier.hpp"

namespace kk3::cli {
namespace {

/// The verifier's options as the flags start them: seed 0, which draws one unless --seed gives it.
verify::verify_options unseeded() {
  verify::verify_options o;
  o.seed = 0;
  return o;
}

struct verify_cli_options {
  std::string family, mode, variant;
  shape_options shape;
  /// The verifier's options that flags set: --tokens, --seed, --hazard-runs, --save-workspace and
  /// --save-all (the shapes and edge shapes follow from the other flags).
  verify::verify_options run = unseeded();
  bool with_test_knobs = false;
  bool no_edge_shapes = false;
  cache_options cache;
  std::string format = "text";  ///< --format text|json
};

/// The worst accuracy against the CPU reference over a set of shipped variants, and their count.
struct accuracy_over : verify::accuracy {
  std::size_t variants = 0;

  void add(const verify::verify_record& r) {
    ++variants;
    merge(r);
  }
  void add(const accuracy_over& a) {
    variants += a.variants;
    merge(a);
  }
};

/// The variants to verify: those --variant names (each once, in the config's order) and always
/// the reference, which the verifier runs first and compares the others with. An unknown id
/// throws error(usage).
std::vector<space::variant> variants_to_verify(const families::family_space& space,
                                               const std::string& filter) {
  std::set<const space::variant*> named;
  if (!filter.empty()) {
    const std::vector<const space::variant*> chosen =
        space::select_variants(space.variants, space.config, filter);
    named.insert(chosen.begin(), chosen.end());
  }
  std::vector<space::variant> variants;
  for (const auto& v : space.variants) {
    if (filter.empty() || named.count(&v) || v.is_reference) variants.push_back(v);
  }
  return variants;
}

/// The shape flags given, split: dimensions a flag may choose (`chosen`: verified at every
/// combination) and those the mode sets (`picking`: attn_res's NB picks the modes that have one
/// of the values given).
struct given_dims {
  families::planned_dims chosen, picking;
};

/// The modes to verify: --mode's (or all) that match the picking dimensions given.
std::vector<const space::mode*> modes_to_verify(const families::family& fam,
                                                const families::family_space& space,
                                                const verify_cli_options& o,
                                                const given_dims& given) {
  auto mode_matches = [&](const space::mode& m) {
    const families::shape own = fam.model_shape(1, m, {});
    return std::all_of(given.picking.begin(), given.picking.end(), [&](const auto& p) {
      return std::find(p.second.begin(), p.second.end(), own.at(p.first)) != p.second.end();
    });
  };
  if (!o.mode.empty())
    static_cast<void>(space::find_mode(space.config, o.mode));  // error(usage) naming the modes
  std::vector<const space::mode*> modes;
  for (const auto& m : space.config.modes) {
    if ((o.mode.empty() || m.name == o.mode) && mode_matches(m)) modes.push_back(&m);
  }
  if (modes.empty()) {
    throw error(error_kind::usage, shape_flag(o.shape, given.picking.front().first) +
                                       ": no mode of family " + o.family + " has those values");
  }
  return modes;
}

/// Bad input before any GPU work: shapes beyond the family's buffers.
void check_verify_shapes(const families::family& fam, const std::vector<const space::mode*>& modes,
                         const verify_cli_options& o, const families::planned_dims& chosen) {
  for (const space::mode* m : modes) {
    for (const families::shape& model : fam.sweep_shapes(*m, chosen)) {
      const std::vector<long long>& tokens = o.run.tokens;
      long long most = tokens.empty() ? 1 : *std::max_element(tokens.begin(), tokens.end());
      if (!o.no_edge_shapes) {
        for (const families::shape& e : fam.edge_shapes(model, *m)) most = std::max(most, e.tokens);
      }
      families::dims given;  // the values this model shape has of the dimensions given
      for (const auto& c : chosen) given.emplace_back(c.first, model.at(c.first));
      families::check_tokens(
          fam, *m, most, given, "--tokens",
          chosen.empty() ? "--tokens" : shape_flag(o.shape, chosen.front().first));
    }
  }
}

/// What verify found, as it comes in: the counts, the accuracy figures over the shipped variants
/// (per mode and in all), a JSON object and a table row per record.
class verify_tally {
 public:
  verify_tally()
      // exact_%, max_ulps and worst_ratio: against the CPU reference, over every shape, for
      // tensors held to SPEC 1.3's bound (bf16(x), and |out - x| / (ulp_bf16(x) + 2^-12 m), whose
      // limit is 1); bit-exact tensors show 100, 0 and 0 when they pass.
      : m_table({"mode", "variant", "status", "shapes", "checks", "exact_%", "max_ulps",
                 "worst_ratio", "first mismatch / reason"},
                {false, false, false, true, true, true, true, true, false}) {}

  void add_mode(const std::string& mode, const std::vector<verify::verify_record>& records) {
    accuracy_over figures;
    for (const verify::verify_record& r : records) {
      add(r);
      if (!r.test_only) figures.add(r);
    }
    m_total.add(figures);
    m_per_mode.emplace_back(mode, figures);
  }

  bool failed() const { return m_failed != 0; }

  nlohmann::ordered_json json(const verify_cli_options& o, const device::device_info& info,
                              unsigned long long seed) const {
    nlohmann::ordered_json modes = nlohmann::ordered_json::array();
    for (const auto& [name, a] : m_per_mode) {
      modes.push_back({{"mode", name},
                       {"variants", a.variants},
                       {"exact_fraction", a.exact_fraction},
                       {"max_ulps", a.max_ulps},
                       {"worst_ratio", a.worst_ratio}});
    }
    return {{"kind", "verify"},
            {"family", o.family},
            {"gpu", info.name},
            {"arch", info.arch},
            {"seed", seed},
            {"ok", m_ok},
            {"failed", m_failed},
            {"unlaunchable", m_unlaunchable},
            {"worst_exact_fraction", m_total.exact_fraction},
            {"worst_ulps", m_total.max_ulps},
            {"worst_ratio", m_total.worst_ratio},
            {"modes", modes},
            {"records", m_records}};
  }

  void print(std::ostream& out, const verify_cli_options& o, unsigned long long seed) const {
    m_table.print(out);
    out << "\nagainst the CPU reference, per mode over its shipped variants (limits: at least "
           "99.9% exact, worst ratio 1):\n";
    for (const auto& [name, a] : m_per_mode) {
      out << "  " << name << ": " << format_double("%.3f", 100 * a.exact_fraction)
          << "% of elements exact, at most " << a.max_ulps << " ulps apart, worst ratio "
          << format_double("%.3f", a.worst_ratio) << " (" << a.variants << " variants)\n";
    }
    out << "\n" << m_ok << " variant-modes ok, " << m_failed << " failed";
    if (m_unlaunchable)
      out << ", " << m_unlaunchable
          << " unlaunchable on this GPU (not run from the shape their reason names)";
    if (o.with_test_knobs)
      out << ", " << m_test_flagged << " test-only variant-modes flagged (expected: all)";
    out << "; seed " << seed << "\n";
    out << "against the CPU reference, over every shipped variant: at least "
        << format_double("%.3f", 100 * m_total.exact_fraction) << "% of elements exact, at most "
        << m_total.max_ulps << " ulps apart, worst ratio "
        << format_double("%.3f", m_total.worst_ratio) << "\n";
  }

 private:
  void add(const verify::verify_record& r) {
    const bool good = r.outcome == results::status::ok;
    if (r.test_only)
      m_test_flagged += !good;
    else if (r.outcome == results::status::unlaunchable)
      ++m_unlaunchable;
    else
      (good ? m_ok : m_failed) += 1;
    m_records.push_back({{"mode", r.mode},
                         {"variant", r.variant},
                         {"test_only", r.test_only},
                         {"status", results::to_text(r.outcome)},
                         {"reason", r.reason},
                         {"shapes", r.shapes},
                         {"checks", r.checks},
                         {"exact_fraction", r.exact_fraction},
                         {"max_ulps", r.max_ulps},
                         {"worst_ratio", r.worst_ratio}});
    m_table.add_row({r.mode, r.variant + (r.test_only ? " (test-only)" : ""),
                     results::to_text(r.outcome), std::to_string(r.shapes.size()),
                     std::to_string(r.checks), format_double("%.3f", 100 * r.exact_fraction),
                     std::to_string(r.max_ulps), format_double("%.3f", r.worst_ratio),
                     r.reason.substr(0, r.reason.find('\n'))});
  }

  text_table m_table;
  std::size_t m_failed = 0, m_ok = 0, m_unlaunchable = 0, m_test_flagged = 0;
  accuracy_over m_total;
  std::vector<std::pair<std::string, accuracy_over>> m_per_mode;  // over its shipped variants
  nlohmann::ordered_json m_records = nlohmann::ordered_json::array();
};

int run_verify(const global_options& global, const verify_cli_options& o) {
  refuse_timing_mode(o.mode, o.family, global.config_dir);
  const families::family& fam = families::find_family(o.family);
  const families::family_space space =
      families::load_family_space(fam, find_config_dir(global.config_dir).dir, o.with_test_knobs);
  const std::vector<space::variant> variants = variants_to_verify(space, o.variant);
  given_dims given;
  for (const auto& g : given_shapes(fam, o.shape, true))
    (fam.find_dimension(g.first)->planned ? given.chosen : given.picking).push_back(g);
  const std::vector<const space::mode*> modes = modes_to_verify(fam, space, o, given);
  // Bad input before any GPU work: shapes beyond the family's buffers, a missing toolkit.
  check_verify_shapes(fam, modes, o, given.chosen);
  const located_dir kernels = find_kernel_dir(global.kernel_dir);
  require_kernel_source(kernels, space.config.source, o.family);
  jit::require_cuda_include_dir();

  session::gpu_session gpu(kernels.dir, o.cache.cache_dir, o.cache.no_cache);
  const device::device_info& info = gpu.info();
  const verify::verifier& verifier = gpu.verifier();  // its helper kernels compiled before the line
  verify::verify_options vo = o.run;
  vo.seed = seed_or_draw(o.run.seed);
  vo.shapes = given.chosen;
  vo.edge_shapes = !o.no_edge_shapes;
  const bool json = o.format == "json";
  (json ? std::cerr : std::cout) << "verifying " << o.family << " on " << info.name << " ("
                                 << info.arch << "), seed " << vo.seed << "\n";
  verify_tally tally;
  for (const space::mode* m : modes)
    tally.add_mode(m->name, verifier.verify_mode(space, *m, variants, vo));
  if (json)
    std::cout << tally.json(o, info, vo.seed).dump(2) << "\n";
  else
    tally.print(std::cout, o, vo.seed);
  return tally.failed() ? k_exit_failure : k_exit_ok;
}

}  // namespace

void add_verify_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<verify_cli_options>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check every variant against the CPU reference (bit for bit, or within the family's accuracy "
      "bound: docs/verification.md, \"The numerics contract\") and bit for bit against the "
      "reference variant, with the PDL hazard check");
  cmd->add_option("--family", o->family, "kernel family")->required();
  cmd->add_option("--mode", o->mode, "only this mode (default: all)");
  cmd->add_option(
      "--variant", o->variant,
      "only these variants: ids, globs ('b1-*'), knob filters (GPW=7) in a comma list, or 'all' "
      "(the reference is always verified too)");
  add_token_list_option(cmd, o->run.tokens, "token counts besides the edge shapes");
  add_shape_options(cmd, o->shape, true);
  cmd->add_option("--seed", o->run.seed, "seed of the random inputs (default: drawn and printed)");
  cmd->add_option(
      "--save-workspace", o->run.save_dir,
      "write the inputs, expected and actual outputs of failing variants as .npy files here");
  cmd->add_flag("--save-all", o->run.save_all,
                "with --save-workspace: save every variant, not only failures");
  cmd->add_flag("--include-test-knobs", o->with_test_knobs,
                "also verify the test-only variants (they should be flagged)");
  cmd->add_flag("--no-edge-shapes", o->no_edge_shapes, "only the requested shapes");
  cmd->add_option("--hazard-runs", o->run.hazard_runs,
                  "PDL hazard checks per variant and shape (default 1)");
  add_text_or_json_option(cmd, o->format, "one object per variant and mode, and the totals");
  add_cache_options(cmd, o->cache);
  cmd->callback([&global, &exit_code, o] { exit_code = run_verify(global, *o); });
}

}  // namespace kk3::cli
