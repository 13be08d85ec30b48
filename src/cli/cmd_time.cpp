// `kk3tune time`: measures one variant at one shape and prints its statistics.
#include <cstdio>
#include <iostream>

#include <algorithm>

#include "cli/commands.hpp"
#include "cli/objective_options.hpp"
#include "cli/variant_setup.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/nvtx.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "results/objective.hpp"
#include "results/time_file.hpp"
#include "sweep/plan.hpp"
#include "timing/capture.hpp"
#include "timing/figures.hpp"
#include "timing/timer.hpp"

namespace kk3::cli {
namespace {

struct time_options {
  variant_options target;
  std::string timing_mode;  ///< --timing; empty = the sweep's objective for the family
  bool no_pdl = false;
  std::string noise = "0.5%";  ///< --noise
  std::size_t min_samples = 10;
  double min_time_s = 0.01;
  double max_time_s = 0.4;
  double ceiling_tb_s = 0;
  unsigned chain_workspaces = 0;  ///< --chain-workspaces (0: timer::chain_rotation)
  unsigned placements = 0;        ///< --placements (0: the objective's default)
  std::string json;               ///< --json FILE, or "-" for stdout
  objective_options chain;        ///< --producer-*, --consumer-*
};

double tb_per_s(const timing::measurement& m) {
  return m.stats.median > 0 ? m.bytes_moved / (m.stats.median * 1e-6) / 1e12 : 0;
}

void print_one(std::ostream& out, const loaded_variant& v, const timing::measurement& m,
               const time_options& o, const results::objective& objective, double noise_target) {
  const auto& s = m.stats;
  std::size_t throttled = 0;
  std::vector<double> clocks;
  for (std::size_t i = 0; i < m.clock_mhz.size(); ++i) {
    throttled += m.throttled[i];
    if (!m.throttled[i]) clocks.push_back(m.clock_mhz[i]);
  }
  const double clock = timing::summarize(clocks).median;
  const double tb_s = tb_per_s(m);
  out << v.describe() << "  seed=" << v.seed << "\n"
      << "  objective  " << results::describe(objective) << "\n"
      << "  samples    " << s.samples << " kept (" << throttled << " throttled dropped), "
      << m.launches_per_sample << (m.mode == results::timing_mode::chain ? " chains" : " launches")
      << " per sample, stopped: " << timing::to_string(m.stopped) << ", "
      << format_double("%.3f", m.wall_s) << " s wall\n"
      << "  SM clock   " << format_double("%.0f", clock) << " MHz (median of kept samples)\n"
      << (m.event_overhead_us != 0
              ? "  events     " + format_double("%.3f", m.event_overhead_us) +
                    " us for an empty event pair, measured this run and subtracted\n"
              : "")
      << "  time us    median " << format_double("%.3f", s.median) << "  min "
      << format_double("%.3f", s.min) << "  mean " << format_double("%.3f", s.mean) << "  p10 "
      << format_double("%.3f", s.p10) << "  p90 " << format_double("%.3f", s.p90) << "  stdev "
      << format_double("%.3f", s.stdev) << "  IQR " << format_double("%.3f", s.iqr) << "\n"
      << "  noise      " << format_double("%.3f", s.rel_stderr_median * 100)
      << "% relative standard error of the median (target "
      << format_double("%.2f", 100 * noise_target) << "%)\n";
  if (m.mode == results::timing_mode::chain) {
    out << "  chain      " << format_double("%.3f", m.chain_total_us)
        << " us per chain with the variant, " << format_double("%.3f", m.chain_base_us)
        << " us without: the variant adds " << format_double("%.3f", s.median)
        << " us; L2 flushed before each replay, " << m.rotated_workspaces
        << " workspace(s) in turn, samples from " << m.placements << " placement(s) in turn\n";
  } else {
    out << "  bandwidth  " << format_double("%.3f", m.bytes_moved / 1e6) << " MB moved, "
        << format_double("%.3f", tb_s) << " TB/s";
    if (o.ceiling_tb_s > 0)
      out << " (" << format_double("%.1f", 100 * tb_s / o.ceiling_tb_s) << "% of "
          << format_double("%.2f", o.ceiling_tb_s) << " TB/s)";
    out << "; working set " << (m.fits_in_l2 ? "fits" : "does not fit") << " in L2 ("
        << format_double("%.0f", static_cast<double>(v.info().l2_bytes) / 1048576) << " MiB)"
        << (m.mode == results::timing_mode::cold
                ? ", flushed before each sample, " + std::to_string(m.rotated_workspaces) +
                      " input sets rotated"
                : "")
        << "\n";
  }
}

void print_table(std::ostream& out, const loaded_variant& v, std::vector<timing::measurement> ms,
                 const time_options& o, const results::objective& objective,
                 const std::string& reference, double min_gain) {
  std::sort(ms.begin(), ms.end(),
            [](const auto& a, const auto& b) { return a.stats.median < b.stats.median; });
  out << v.describe() << "  seed=" << v.seed << ", interleaved, fastest first\n"
      << "objective: " << results::describe(objective) << "\n";
  text_table table(
      {"variant", "median_us", "vs_fastest_%", "p10_us", "p90_us", "noise_%", "samples", "TB/s"},
      {false, true, true, true, true, true, true, true});
  const double fastest = ms.front().stats.median;
  std::size_t ties = 0;
  for (const auto& m : ms) {
    const double behind = fastest > 0 ? m.stats.median / fastest - 1 : 0;
    ties += behind > 0 && behind < min_gain;
    table.add_row({m.label + (m.label == reference ? " (reference)" : ""),
                   format_double("%.3f", m.stats.median), format_double("%+.1f", 100 * behind),
                   format_double("%.3f", m.stats.p10), format_double("%.3f", m.stats.p90),
                   format_double("%.2f", 100 * m.stats.rel_stderr_median),
                   std::to_string(m.stats.samples), format_double("%.3f", tb_per_s(m))});
  }
  table.print(out);
  if (ties) {
    // Why the table may name another of these: the sweep's selection rule (docs/sweep.md).
    out << ties << " variant(s) within " << format_double("%.1f", 100 * min_gain)
        << "% of the fastest: the sweep's table replaces its incumbent (the previous token "
           "count's winner, or --baseline's) only by a variant faster by the plan's min_gain of "
        << format_double("%.1f", 100 * min_gain)
        << "% beyond the noise, so it may name one of them instead of the fastest here\n";
  }
  if (o.ceiling_tb_s > 0)
    out << "(TB/s against a ceiling of " << format_double("%.2f", o.ceiling_tb_s) << ")\n";
}

/// The default plan's min_gain: what a challenger must gain over the table's incumbent.
double planned_min_gain(const global_options& global) {
  const std::filesystem::path plan = find_config_dir(global.config_dir).dir / "default.json";
  std::error_code ec;
  return std::filesystem::is_regular_file(plan, ec)
             ? sweep::load_sweep_config(plan).selection.min_gain
             : select::selection_rule{}.min_gain;
}

/// The first line of `time`'s output: the objective, and how it stands to the sweep's (whose
/// dispatch tables were chosen under the plan's objective).
std::string objective_note(const std::string& family, const results::objective& planned,
                           const results::objective& used, bool given) {
  const std::string planned_mode = results::to_string(planned.mode);
  if (!given || used.mode == planned.mode) {
    return "timing " + std::string(results::to_string(used.mode)) + ": the sweep's objective for " +
           family + " (its dispatch tables were chosen so)" +
           (given ? "" : "; --timing graph|isolated|cold|chain times otherwise");
  }
  return "timing " + std::string(results::to_string(used.mode)) + " (--timing): the sweep chose " +
         family + "'s dispatch tables under " + planned_mode +
         ", so this time and this winner may differ from the table's; --timing " + planned_mode +
         " times as the sweep does";
}

/// --json FILE: checked writable, and apart from the kernel and config folders, before any GPU
/// work.
void check_json_output(const global_options& global, const time_options& o) {
  if (o.json.empty() || o.json == "-") return;
  file_roles files;
  files.input_folder("--kernel-dir", find_kernel_dir(global.kernel_dir).dir);
  files.input_folder("--config-dir", find_config_dir(global.config_dir).dir);
  files.output("--json", o.json);
  files.check();
  require_output_file(o.json, "--json " + o.json);
}

/// Every loaded variant timed together (interleaved) on the variant's workspaces: those it has,
/// and in cold and chain mode the rotation's more.
std::vector<timing::measurement> measure_loaded(loaded_variant& v, const time_options& o,
                                                const timing::timing_options& to) {
  const timing::timer& timer = v.gpu->timer();
  const double bytes = v.space.impl->bytes_moved(v.shape, *v.mode);
  if (to.mode == results::timing_mode::cold) add_workspaces(v, timer.cold_rotation(bytes));
  if (to.mode == results::timing_mode::chain)
    add_workspaces(v, o.chain_workspaces ? o.chain_workspaces : timer.chain_rotation(bytes));
  std::vector<timing::candidate> candidates;
  for (const loaded_kernel& k : v.kernels) {
    std::vector<families::workspace*> workspaces;
    for (auto& w : v.workspaces) workspaces.push_back(w.get());
    candidates.push_back(timing::make_candidate(*v.space.impl, *k.variant, *v.mode, v.shape,
                                                k.function, std::move(workspaces)));
  }
  nvtx::scoped_range family_range(v.space.config.family);
  nvtx::scoped_range shape_range(v.shape_range_name(), v.shape.tokens);
  return timer.measure(candidates, to);
}

/// The time file (--json): the measurements with the machine's figures, so that `compare` can
/// show whether two files came from alike machines.
void write_time_json(const global_options& global, const loaded_variant& v, const time_options& o,
                     const std::vector<timing::measurement>& result, const std::string& reference,
                     const results::objective& objective) {
  const timing::timer& timer = v.gpu->timer();
  results::run_context context = timing::capture_context(v.info(), global.argv);
  context.copy_ceiling_tb_s =
      timing::measure_copy_ceiling(v.gpu->engine(), v.info(), timer, v.gpu->kernel_dir(),
                                   find_config_dir(global.config_dir).dir);
  context.empty_kernel_us = timing::measure_empty_kernel(timer, v.gpu->helpers());
  const double ceiling = o.ceiling_tb_s > 0 ? o.ceiling_tb_s : context.copy_ceiling_tb_s;
  const results::time_subject subject{v.space.config.family,
                                      v.mode->name,
                                      v.shape.tokens,
                                      v.space.impl->key_of(v.shape),
                                      v.seed,
                                      ceiling,
                                      reference,
                                      objective};
  std::vector<results::time_entry> entries;
  for (const timing::measurement& m : result) entries.push_back(timing::time_entry_of(m));
  const std::string doc = results::time_text(context, subject, entries);
  if (o.json == "-")
    std::cout << doc;
  else
    write_file_atomic(o.json, doc);
}

int run_time(const global_options& global, const time_options& o) {
  refuse_timing_mode(o.target.mode, o.target.family, global.config_dir);
  // The sweep's objective for the family unless --timing says otherwise; the chain model is the
  // plan's unless flags change it; checked before any GPU work.
  const families::family& family = families::find_family(o.target.family);
  const results::objective planned =
      sweep::planned_objective(family, find_config_dir(global.config_dir).dir);
  const bool timing_given = !o.timing_mode.empty();
  const results::objective objective =
      objective_of(planned, timing_given ? results::parse_timing_mode(o.timing_mode) : planned.mode,
                   !o.no_pdl, o.chain);
  const std::string note = objective_note(family.name(), planned, objective, timing_given);
  if (o.chain_workspaces && objective.mode != results::timing_mode::chain) {
    throw error(error_kind::usage,
                "--chain-workspaces spreads the chains over workspaces: it needs --timing chain");
  }
  timing::timing_options to = timing::options_for(objective);
  to.stop.noise_target = percent_flag(o.noise, "--noise", 0.001, 100, false);
  to.stop.min_samples = o.min_samples;
  to.stop.min_time_s = o.min_time_s;
  to.stop.max_time_s = o.max_time_s;
  if (o.placements) to.placements = o.placements;
  check_json_output(global, o);

  loaded_variant v = load_variant(global, o.target);
  const std::vector<timing::measurement> result = measure_loaded(v, o, to);
  const std::string& reference =
      space::find_variant(v.space.variants, v.space.config, "reference").id;
  std::ostream& out = o.json == "-" ? std::cerr : std::cout;
  out << note << "\n";
  if (result.size() == 1) {
    print_one(out, v, result.front(), o, objective, to.stop.noise_target);
  } else {
    print_table(out, v, result, o, objective, reference, planned_min_gain(global));
  }
  if (!o.json.empty()) write_time_json(global, v, o, result, reference, objective);
  return 0;
}

}  // namespace

void add_time_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<time_options>();
  CLI::App* cmd =
      app.add_subcommand("time", "Measure one variant at one shape and print its statistics");
  add_variant_options(cmd, o->target,
                      "the variants to time, interleaved: 'reference' (default), ids, globs "
                      "('b1-*'), knob filters (GPW=7) in a comma list, or 'all'");
  cmd->add_option(
         "--timing", o->timing_mode,
         "timing mode: graph, isolated, cold or chain (default: the sweep's objective for the "
         "family, chain for the PDL families)")
      ->check(CLI::IsMember(results::timing_mode_names()));
  cmd->add_flag("--no-pdl", o->no_pdl, "launch without programmatic dependent launch");
  cmd->add_option("--noise", o->noise,
                  "target relative standard error of the median, e.g. 0.5% (default 0.5%)");
  cmd->add_option("--min-samples", o->min_samples, "fewest samples (default 10)")
      ->check(positive_integer());
  cmd->add_option("--min-time", o->min_time_s, "least sampling time, seconds (default 0.01)")
      ->check(non_negative_number());
  cmd->add_option("--max-time", o->max_time_s, "most sampling time, seconds (default 0.4)")
      ->check(positive_number());
  cmd->add_option("--ceiling-tb-s", o->ceiling_tb_s,
                  "bandwidth ceiling to report a fraction of, TB/s");
  add_objective_options(cmd, o->chain);
  cmd->add_option("--chain-workspaces", o->chain_workspaces,
                  "chain: most workspaces the chains run on in turn (default: as many as fit in "
                  "half the L2, at most 8; never more than a quarter of a replay's chains)")
      ->check(CLI::Range(1u, 64u))
      ->group("Chain model");
  cmd->add_option("--placements", o->placements,
                  "samplers per variant, each with its own graphs, streams and buffers, taking the "
                  "samples in turn (default: chain 8 for a variant adding under 1.8 us, down to 1 "
                  "from 5 us; other modes 1)")
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--json", o->json,
                  "also write the result as JSON to FILE ('-': stdout, the table goes to stderr)");
  cmd->callback([&global, &exit_code, o] { exit_code = run_time(global, *o); });
}

}  // namespace kk3::cli
