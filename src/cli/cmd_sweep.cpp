// `kk3tune sweep`: the tool's main job. On a GPU: compile, screen, measure, verify and select
// the dispatch table of every family, mode and model shape in the plan, and write the result
// JSON. Without one: compile every variant for the target archs, check the plan, say that
// nothing was timed, and exit 3.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/sweep_preview.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "jit/nvrtc_archs.hpp"
#include "jit/toolkit.hpp"
#include "report/records_csv.hpp"
#include "results/reader.hpp"
#include "sweep/baseline.hpp"
#include "sweep/journal.hpp"
#include "sweep/plan.hpp"
#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

namespace kk3::cli {

namespace {

struct sweep_options {
  std::filesystem::path config;  ///< --config; empty = configs/default.json
  std::string family;            ///< --family
  std::string mode;              ///< --mode LIST
  std::string timing;            ///< --timing: graph, isolated, cold or chain (default: the plan's)
  std::string variant;           ///< --variant LIST (with --family)
  std::filesystem::path csv;     ///< --csv FILE: the records as CSV too
  std::vector<long long> tokens;  ///< --tokens
  std::filesystem::path out = "kk3tune-sweep.json";
  std::string arch;      ///< --arch: compile-only archs when there is no GPU
  std::string min_gain;  ///< --min-gain ("2%" or "2"); empty = the plan's
  unsigned long long seed = 0;
  cache_options cache;
  bool resume = false;              ///< --resume: continue OUT.journal
  bool dry_run = false;             ///< --dry-run: print the plan preview, do nothing
  double variant_timeout_s = 60;    ///< --variant-timeout
  bool no_isolation = false;        ///< --no-isolation: measure in this process
  std::vector<std::string> inject;  ///< --inject-fault VARIANT=KIND (test only)
  bool worker = false;              ///< --worker: run by the supervisor (internal)
  std::string shard;                ///< --shard I/N
  std::string gpus;                 ///< --gpus all|LIST
  std::string gpu_worker;           ///< --gpu-worker I/N: worker I of --gpus' N (internal)
  std::filesystem::path claims;     ///< --claims DIR: the work items' claims (internal)
  std::filesystem::path baseline;   ///< --baseline FILE: its choices are the incumbents
};

/// The families the request sweeps (the plan's, or --family's), after check_plan.
std::vector<const families::family*> plan_families(const sweep::sweep_request& r) {
  std::vector<const families::family*> out;
  for (const sweep::family_plan& p : r.config.families) {
    if (r.family_filter.empty() || p.family == r.family_filter)
      out.push_back(&families::find_family(p.family));
  }
  return out;
}

/// What the sweep reads (the plan, the configs, the kernels, the baseline) and writes (--out, its
/// journal and partial file, the parts and claims of --gpus, --csv), checked before any work:
/// no output may be an input or another output.
void check_files(const global_options& global, const sweep_options& o,
                 const std::filesystem::path& plan_file) {
  file_roles files;
  files.input(o.config.empty() ? "--config-dir (the default plan)" : "--config", plan_file);
  files.input_folder("--config-dir", find_config_dir(global.config_dir).dir);
  files.input_folder("--kernel-dir", find_kernel_dir(global.kernel_dir).dir);
  files.input("--baseline", o.baseline);
  files.output("--out", o.out);
  files.output("--out's journal", sweep::journal_path(o.out));
  files.output("--out's partial result", o.out.string() + ".partial");
  files.output("--csv", o.csv);
  if (!o.gpus.empty() && !o.worker) {
    std::size_t workers = split(o.gpus, ',').size();
    if (o.gpus == "all") workers = device::driver_available() ? device::device_count() : 0;
    files.output("--gpus' claims", sweep::gpu_claims(o.out));
    for (std::size_t w = 0; w < workers; ++w) {
      const std::filesystem::path part = sweep::gpu_part(o.out, static_cast<int>(w));
      files.output("--gpus' part", part);
      files.output("--gpus' journal", sweep::journal_path(part));
    }
  }
  files.check();
}

/// The request of a sweep from its flags, with the plan read and checked. Bad input is reported
/// before any compile or GPU work: the output folder, --arch, --shard, the toolkit's include
/// folder, then the plan's families, modes, shapes and token counts.
sweep::sweep_request make_request(const global_options& global, const sweep_options& o) {
  sweep::sweep_request request;
  const auto config_dir = find_config_dir(global.config_dir).dir;
  const std::filesystem::path plan_file = o.config.empty() ? config_dir / "default.json" : o.config;
  check_files(global, o, plan_file);  // before anything is read: no output may be an input
  std::error_code ec;
  if (!std::filesystem::is_regular_file(plan_file, ec))
    throw error(error_kind::config, plan_file.string() + ": missing: the sweep plan");
  request.config = sweep::load_sweep_config(plan_file);
  if (request.config.is_family_config)
    request.family_config_file = plan_file;  // that family, read from this file
  if (!o.min_gain.empty())
    request.config.selection.min_gain = percent_flag(o.min_gain, "--min-gain", 0, 100, true);
  request.family_filter = o.family;
  refuse_timing_mode(o.mode);
  if (!o.mode.empty()) request.mode_filter = split(o.mode, ',');
  request.timing = o.timing;
  if (!o.variant.empty()) {
    if (o.family.empty())
      throw error(error_kind::usage, "--variant " + o.variant +
                                         ": variant ids belong to one family: give --family too");
    request.variant_filter = split(o.variant, ',');
  }
  request.tokens = o.tokens;
  request.kernel_dir = find_kernel_dir(global.kernel_dir).dir;
  request.config_dir = config_dir;
  request.cache_dir = o.cache.cache_dir;
  request.no_cache = o.cache.no_cache;
  request.argv =
      typed_command(global.argv);  // a worker records its supervisor's command, not its own
  request.inject = sweep::parse_injections(o.inject);
  if (!o.baseline.empty())
    request.baseline =
        std::make_shared<const sweep::baseline_tables>(sweep::load_baseline(o.baseline));
  if (!o.shard.empty()) request.shard = sweep::parse_shard(o.shard);
  if (!o.shard.empty() && !o.gpus.empty())
    throw error(error_kind::usage, "--shard and --gpus: choose one (a shard runs on one GPU)");
  if (global.device != 0 && !o.gpus.empty() && !o.worker) {
    throw error(error_kind::usage,
                "--device and --gpus: choose one (--gpus names the GPUs of its workers)");
  }
  if (!request.tokens.empty()) {
    std::sort(request.tokens.begin(), request.tokens.end());
    request.tokens.erase(std::unique(request.tokens.begin(), request.tokens.end()),
                         request.tokens.end());
    request.config.tokens = request.tokens;
  }
  require_output_file(o.out, "--out " + o.out.string());
  if (!o.csv.empty()) require_output_file(o.csv, "--csv " + o.csv.string());
  if (!o.arch.empty()) jit::parse_arch_list(o.arch);
  jit::require_cuda_include_dir();
  sweep::check_plan(request, find_kernel_dir(global.kernel_dir));
  if (!o.arch.empty())
    families::require_archs(plan_families(request), jit::parse_arch_list(o.arch), "--arch");
  return request;
}

/// How the sweep runs, from its flags.
sweep::run_options make_run_options(const global_options& global, const sweep_options& o) {
  sweep::run_options r;
  r.out = o.out;
  r.resume = o.resume;
  r.seed = o.seed;
  r.variant_timeout_s = o.variant_timeout_s;
  r.isolated = !o.no_isolation;
  r.worker = o.worker;
  r.argv = global.argv;
  r.gpu_worker = o.gpu_worker;
  r.claims = o.claims;
  r.archs = jit::parse_arch_list(o.arch.empty() ? "sm_90a,sm_100a" : o.arch);
  return r;
}

int run_sweep_command(const global_options& global, const sweep_options& o) {
  sweep::sweep_request request = make_request(global, o);
  std::string why;
  const bool gpu = device::driver_available(&why) && device::device_count() > 0;
  if (gpu && !o.worker)
    families::require_archs(plan_families(request), {device::first_gpu().arch}, "the GPU's arch");
  sweep::run_options run = make_run_options(global, o);
  if (o.dry_run) {
    const std::vector<std::string> archs =
        gpu ? std::vector<std::string>{device::first_gpu().arch} : run.archs;
    return print_sweep_preview(request, archs, gpu, why.empty() ? "no device" : why);
  }
  if (!gpu) {
    if (!o.gpus.empty())
      std::cerr << "kk3tune sweep: --gpus " << o.gpus
                << ": no GPU, so no workers: compiling in this process\n";
    return sweep::run_compile_only(request, run, why);
  }
  if (!o.worker && !o.gpus.empty()) run.gpus = sweep::parse_gpus(o.gpus);
  if (run.gpus.size() > 1 && o.no_isolation) {
    throw error(error_kind::usage, "--no-isolation with --gpus " + o.gpus +
                                       ": each GPU's worker is a supervised process");
  }
  return sweep::run_measured(request, run);
}

}  // namespace

void add_sweep_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<sweep_options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Compile, verify and measure every variant at every shape, and select the dispatch table");
  cmd->add_option(
      "--config", o->config,
      "the sweep plan (default: configs/default.json); a family config sweeps that family alone");
  cmd->add_option("--family", o->family, "only this family of the plan");
  cmd->add_option("--mode", o->mode,
                  "only these of the families' modes, a comma list (timing modes go to --timing)");
  cmd->add_option("--timing", o->timing,
                  "time every family in this timing mode: graph, isolated, cold or chain "
                  "(default: the plan's objective, chain for the PDL families)")
      ->check(CLI::IsMember(results::timing_mode_names()));
  cmd->add_option(
      "--variant", o->variant,
      "with --family: only these variants: ids, globs ('b1-*'), knob filters (GPW=7) in a comma "
      "list (the reference is always measured too)");
  add_token_list_option(cmd, o->tokens, "token counts (default: the plan's)");
  cmd->add_option("--out,-o", o->out, "result JSON (default: kk3tune-sweep.json)");
  cmd->add_option("--csv", o->csv,
                  "also write the records as CSV, one column per knob (as `kk3tune report --csv`)");
  cmd->add_option("--arch", o->arch,
                  "without a GPU: archs to compile for (default: sm_90a,sm_100a)");
  cmd->add_option(
      "--min-gain", o->min_gain,
      "percent a challenger must gain over the incumbent, e.g. 2% (default: the plan's, 2%)");
  cmd->add_option("--baseline", o->baseline,
                  "a committed sweep result: at each token count its choice is the incumbent, "
                  "replaced only by a variant faster by the minimum gain beyond the noise, "
                  "measured head to head in this run (stable tables)");
  cmd->add_option("--seed", o->seed, "seed of the random inputs (default: drawn and recorded)");
  cmd->add_option("--shard", o->shard,
                  "I/N: only shard I of N of the plan's work items (a work item is a family x "
                  "mode x shape with all its token counts; `kk3tune merge` joins the shards' "
                  "files)");
  add_cache_options(cmd, o->cache);
  cmd->add_flag("--dry-run", o->dry_run,
                "print the plan: work items, variants and compiles per family and mode, how many "
                "are in the compile cache, estimates of the compile and GPU time; compile, time "
                "and write nothing");
  cmd->add_flag(
      "--resume", o->resume,
      "continue the sweep whose journal (OUT.journal) a kill or a fault left, with the same flags");
  cmd->add_option("--variant-timeout", o->variant_timeout_s,
                  "seconds one variant's GPU work may take before it counts as hung and its worker "
                  "is restarted (default 60)")
      ->check(positive_number());
  cmd->add_flag("--no-isolation", o->no_isolation,
                "measure in this process (a sticky CUDA fault then ends the sweep; the journal "
                "keeps what was measured)");
  cmd->add_option("--inject-fault", o->inject,
                  "test only: VARIANT=illegal_address|trap|hang makes that variant fail on "
                  "purpose; VARIANT=slow makes it correct but about 0.5 us slower per CTA")
      ->group("");  // hidden from --help
  cmd->add_flag("--worker", o->worker, "internal: run as the supervisor's worker")->group("");
  cmd->add_option("--gpus", o->gpus,
                  "all, or a list such as 0,1: one supervised worker per GPU, each pulling work "
                  "items from the plan; their parts are merged into --out (default: GPU 0 alone)");
  cmd->add_option("--gpu-worker", o->gpu_worker, "internal: worker I of N of --gpus")->group("");
  cmd->add_option("--claims", o->claims, "internal: the claims folder of --gpus")->group("");
  cmd->footer(
      "Exit codes: 0 swept, 1 a variant failed verification or to compile (one the GPU cannot\n"
      "launch is recorded as unlaunchable, not a failure), 2 bad plan or flag, 3 no GPU (the plan\n"
      "was compiled and checked, nothing timed) or a device fault.");
  cmd->callback([&global, &exit_code, o] {
    exit_code = run_sweep_command(global, *o);
    std::error_code ec;
    if (!o->csv.empty() && !o->worker &&
        std::filesystem::is_regular_file(o->out, ec)) {  // what was written, also a stopped run's
      write_file_atomic(o->csv, report::records_csv(results::read_result_set(o->out)));
      std::cout << "wrote " << o->csv.string() << " (the records as CSV)\n";
    }
  });
}

}  // namespace kk3::cli
