// `kk3tune sweep`: the tool's main job. On a GPU: compile, screen, measure, verify and select
// the dispatch table of every family, mode and model shape in the plan, and write the result
// JSON. Without one: compile every variant for the target archs, check the plan, say that
// nothing was timed, and exit 3.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/sweep_preview.hpp"
#include "cli/table.hpp"
#include "cli/untimed_summary.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/watch.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "jit/arch.hpp"
#include "jit/toolkit.hpp"
#include "merge/merge.hpp"
#include "report/records_csv.hpp"
#include "results/objective.hpp"
#include "results/reader.hpp"
#include "results/sweep_file.hpp"
#include "sweep/baseline.hpp"
#include "sweep/journal.hpp"
#include "sweep/plan.hpp"
#include "sweep/result_file.hpp"
#include "sweep/supervisor.hpp"
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

/// --inject-fault VARIANT=KIND -> variant id -> KK3_INJECT_FAULT value.
std::map<std::string, int> parse_injections(const std::vector<std::string>& items) {
  const std::map<std::string, int> kinds = {
      {"illegal_address", 1}, {"trap", 2}, {"hang", 3}, {"slow", 4}};
  std::map<std::string, int> out;
  for (const std::string& item : items) {
    const std::size_t eq = item.rfind('=');
    const auto kind = eq == std::string::npos ? kinds.end() : kinds.find(item.substr(eq + 1));
    if (kind == kinds.end()) {
      throw error(error_kind::usage,
                  "--inject-fault " + item +
                      ": expected VARIANT=KIND, KIND one of illegal_address, trap, hang, slow");
    }
    out[item.substr(0, eq)] = kind->second;
  }
  return out;
}

/// What a journal belongs to: the plan's digest (the plan file and every flag that changes what is
/// swept) and the shard.
std::string journal_key(const sweep::sweep_request& r, bool timed,
                        const std::vector<std::string>& archs = {}) {
  return hasher().add(sweep::plan_digest(r, timed, archs)).add(r.shard.text()).hex();
}

/// The journal of this run: continued with --resume (or by a worker), else started.
sweep::journal open_journal(const sweep_options& o, const std::string& key, bool timed) {
  const std::filesystem::path file = sweep::journal_path(o.out);
  if (o.resume || o.worker) return sweep::journal::resume(file, key);
  const unsigned long long seed = o.seed ? o.seed : (std::random_device{}() | 1ull);
  return sweep::journal::create(file, key, seed, timed);
}

/// After the final file is written, the journal has served its purpose.
void finish_journal(const sweep::journal& log) {
  std::error_code ec;
  std::filesystem::remove(log.file(), ec);
}

/// "42 s", "3 min 05 s", "1 h 02 min": a duration for the progress line.
std::string duration_text(double s) {
  const long long t = std::llround(std::max(0.0, s));
  char text[40];
  if (t < 60) {
    std::snprintf(text, sizeof text, "%lld s", t);
  } else if (t < 3600) {
    std::snprintf(text, sizeof text, "%lld min %02lld s", t / 60, t % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld h %02lld min", t / 3600, t / 60 % 60);
  }
  return text;
}

/// Progress on stderr: a redrawn bar on a terminal, plain lines otherwise.
class progress_printer {
 public:
  explicit progress_printer(const char* what)
      : m_what(what), m_tty(::isatty(STDERR_FILENO)), m_start(std::chrono::steady_clock::now()) {}

  void operator()(const sweep::progress_event& e) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const double rate = elapsed > 0 ? e.done / elapsed : 0;
    // The sweep's own estimate where it has one (compiles: weighted by each family's cost).
    const double eta = e.eta_s ? *e.eta_s : rate > 0 ? (e.total - e.done) / rate : 0;
    char head[160];
    std::snprintf(head, sizeof head, "%s %zu/%zu (%.1f/s, ETA %s)", m_what, e.done, e.total, rate,
                  duration_text(eta).c_str());
    if (m_tty) {
      const int width = 30;
      const int filled = e.total ? static_cast<int>(width * e.done / e.total) : 0;
      std::fprintf(stderr, "\r\033[K[%s%s] %s %.60s", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), head, e.current.c_str());
      if (e.done == e.total) std::fprintf(stderr, "\r\033[K");
    } else if (m_plain_every == 0 || e.done % m_plain_every == 0 || e.done == e.total) {
      std::fprintf(stderr, "%s: %s\n", head, e.current.c_str());
    }
    std::fflush(stderr);
  }
  /// Plain lines only every n events (compiles come by the thousand).
  void plain_every(std::size_t n) { m_plain_every = n; }

 private:
  const char* m_what;
  bool m_tty;
  std::chrono::steady_clock::time_point m_start;
  std::size_t m_plain_every = 0;
};

/// --gpus: "all" (every GPU the driver sees) or a comma list of device numbers (one named twice
/// runs two workers on it, with a warning).
std::vector<int> parse_gpus(const std::string& text) {
  const int count = device::device_count();
  std::vector<int> gpus;
  if (text == "all") {
    for (int g = 0; g < count; ++g) gpus.push_back(g);
    return gpus;
  }
  for (const std::string& item : split(text, ',')) {
    const std::optional<long long> number = parse_integer(item);
    const int g = number && *number >= 0 && *number < count ? static_cast<int>(*number) : -1;
    if (g < 0) {
      throw error(error_kind::usage,
                  "--gpus " + text + ": '" + item + "' is not one of this machine's GPUs (0 to " +
                      std::to_string(count - 1) + "); expected all or a list such as 0,1");
    }
    gpus.push_back(g);
  }
  if (gpus.empty()) throw error(error_kind::usage, "--gpus: expected all or a list such as 0,1");
  std::vector<int> distinct = gpus;
  std::sort(distinct.begin(), distinct.end());
  if (std::unique(distinct.begin(), distinct.end()) != distinct.end()) {
    // Allowed (it tests the workers on a one-GPU machine), but their timings disturb each other.
    std::cerr << "kk3tune sweep: --gpus " << text
              << " names a GPU twice: its workers share it, and each one's timings include the "
                 "other's load\n";
  }
  return gpus;
}

/// The CUDA_VISIBLE_DEVICES of the worker on GPU `g` (a number among the GPUs this process sees):
/// under an inherited CUDA_VISIBLE_DEVICES (a job scheduler's GPUs) it is that list's g-th entry.
std::string visible_device(int g) {
  const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!inherited || !*inherited) return std::to_string(g);
  const std::vector<std::string> list = split(inherited, ',');
  return static_cast<std::size_t>(g) < list.size() ? list[static_cast<std::size_t>(g)]
                                                   : std::to_string(g);
}

/// Worker w's part of a --gpus sweep: OUT.gpu<w>.json (its journal beside it).
std::filesystem::path gpu_part(const std::filesystem::path& out, int worker) {
  return out.string() + ".gpu" + std::to_string(worker) + ".json";
}

/// The journals of --gpus' workers, one per GPU: continued where a stopped run left them, else
/// started. One seed for every worker: --seed, else a resumed worker's, else drawn now.
std::vector<sweep::journal> gpu_journals(const sweep_options& o, const std::string& key,
                                         std::size_t workers) {
  std::vector<std::optional<sweep::journal>> resumed(workers);
  unsigned long long seed = o.seed;
  std::error_code ec;
  for (std::size_t w = 0; w < workers && o.resume; ++w) {
    const auto file = sweep::journal_path(gpu_part(o.out, static_cast<int>(w)));
    if (!std::filesystem::exists(file, ec)) continue;  // that worker had finished its part
    resumed[w] = sweep::journal::resume(file, key);
    if (!seed) seed = resumed[w]->state().seed;
  }
  if (!seed) seed = std::random_device{}() | 1ull;
  std::vector<sweep::journal> logs;
  for (std::size_t w = 0; w < workers; ++w) {
    logs.push_back(resumed[w] ? std::move(*resumed[w])
                              : sweep::journal::create(
                                    sweep::journal_path(gpu_part(o.out, static_cast<int>(w))), key,
                                    seed, true));
  }
  return logs;
}

/// The parts of --gpus' workers merged into --out as `merge` would; then the parts and claims go.
void merge_gpu_parts(const global_options& global, const sweep_options& o, std::size_t workers,
                     const std::filesystem::path& claims) {
  std::vector<merge::shard_input> parts;
  for (std::size_t w = 0; w < workers; ++w)
    parts.push_back(merge::read_shard(gpu_part(o.out, static_cast<int>(w))));
  const results::result_set merged = merge::merge_shards(std::move(parts), global.argv);
  write_file_atomic(o.out, results::sweep_file_text(merged));
  std::error_code ec;
  for (std::size_t w = 0; w < workers; ++w)
    std::filesystem::remove(gpu_part(o.out, static_cast<int>(w)), ec);
  std::filesystem::remove_all(claims, ec);
  std::cout << "\nmerged the parts of " << workers << " GPUs into " << o.out.string() << ": "
            << merged.records.size() << " records, " << merged.dispatch.size() << " tables\n";
}

/// --gpus with several GPUs: one supervised worker per GPU (CUDA_VISIBLE_DEVICES), each pulling
/// work items from OUT.claims and writing its part; the parts are merged into OUT as `merge`
/// would, then removed. A stopped run keeps parts, journals and claims: --resume continues it.
int run_on_gpus(const global_options& global, const sweep_options& o, const std::string& key,
                const std::vector<int>& gpus) {
  const std::filesystem::path claims = o.out.string() + ".claims";
  std::error_code ec;
  if (!o.resume && std::filesystem::exists(claims, ec)) {
    throw error(
        error_kind::usage,
        claims.string() +
            ": a --gpus sweep to this --out was stopped: --resume continues it (or remove it)");
  }
  const std::size_t n = gpus.size();
  std::vector<sweep::journal> logs = gpu_journals(o, key, n);
  std::vector<int> codes(n, 0);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < n; ++w) {
    sweep::supervisor_options so;
    so.worker_argv = global.argv;
    for (const std::string& a : {std::string("--worker"), std::string("--gpu-worker"),
                                 std::to_string(w + 1) + "/" + std::to_string(n),
                                 std::string("--claims"), claims.string()}) {
      so.worker_argv.push_back(a);
    }
    so.variant_timeout_s = o.variant_timeout_s;
    so.env.emplace_back("CUDA_VISIBLE_DEVICES", visible_device(gpus[w]));
    so.name = "GPU " + std::to_string(gpus[w]);
    threads.emplace_back([so, w, &logs, &codes, &errors] {
      try {
        codes[w] = sweep::supervise(so, logs[w]);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (int code : codes) {
    if (code != k_exit_ok && code != k_exit_failure)
      return code;  // a worker stopped: its part, journal and claims stay
  }
  merge_gpu_parts(global, o, n, claims);
  return *std::max_element(codes.begin(), codes.end());
}

/// ", shard 2/3: 9 of 27 work items" for a sharded run; empty for a whole one.
std::string shard_note(const sweep::sweep_result& r) {
  if (r.shard.whole()) return "";
  return ", shard " + r.shard.text() + ": " + std::to_string(r.shard_items.size()) + " of " +
         std::to_string(r.items.size()) + " work items";
}

/// With --baseline: how many token counts changed their variant against it, and each change's gain.
void print_baseline_changes(std::ostream& out, const sweep::sweep_result& r) {
  long long counts = 0;
  std::vector<std::string> lines;
  for (const auto& d : r.dispatch) {
    const std::optional<results::baseline_summary> b = d.summarize_baseline();
    if (!b) continue;
    counts += b->counts;
    for (const results::baseline_change& c : b->changes) {
      const std::string where = d.family + "/" + d.mode +
                                (d.shape.empty() ? "" : " " + families::shape_text(d.shape)) +
                                " T=" + std::to_string(c.tokens);
      lines.push_back(where + ": " + c.from + " -> " + c.to +
                      (c.from_qualified ? " (" + cell("%.1f", 100 * c.gain) + "% faster, " +
                                              cell("%.1f", c.gain_sigmas) + " sigma)"
                                        : " (the baseline's variant did not qualify here)"));
    }
  }
  if (!counts) return;
  out << "\nagainst the baseline: " << lines.size() << " of " << counts
      << " token counts changed their variant ("
      << cell("%.1f", 100.0 * static_cast<double>(lines.size()) / static_cast<double>(counts))
      << "%)\n";
  for (const std::string& l : lines) out << "  " << l << "\n";
}

void print_summary(std::ostream& out, const sweep::sweep_result& r) {
  for (const auto& f : r.families)
    out << "objective " << f.family << ": " << results::describe(f.objective) << "\n";
  // The reference's and each variant's final-round median per family/mode/shape/tokens.
  std::map<std::string, double> median;
  std::map<std::string, std::string> reference_of;
  for (const auto& f : r.families) reference_of[f.family] = f.reference;
  auto key = [](const std::string& fam, const std::string& mode, const families::dims& shape,
                long long t, const std::string& v) {
    return sweep::count_key(sweep::shape_key(fam, mode, shape), t) + "/" + v;
  };
  for (const auto& rec : r.records) {
    if (rec.stats && rec.status != results::status::dropped)
      median[key(rec.family, rec.mode, rec.shape, rec.tokens, rec.variant)] = rec.stats->median;
  }
  text_table table(
      {"family", "mode", "shape", "tokens", "winner", "speedup_vs_ref", "runner_up", "margin_%"},
      {false, false, false, false, false, true, false, true});
  for (const auto& d : r.dispatch) {
    for (const auto& range : d.ranges) {
      double log_sum = 0;
      int n = 0;
      for (long long t : range.tokens) {
        const auto w = median.find(key(d.family, d.mode, d.shape, t, range.winner));
        const auto ref = median.find(key(d.family, d.mode, d.shape, t, reference_of[d.family]));
        if (w != median.end() && ref != median.end() && w->second > 0) {
          log_sum += std::log(ref->second / w->second);
          ++n;
        }
      }
      table.add_row({d.family, d.mode, families::shape_text(d.shape),
                     std::to_string(range.min_tokens) + "-" + std::to_string(range.max_tokens),
                     range.winner + (range.incumbent_kept ? " (kept)" : ""),
                     n ? cell("%.3f", std::exp(log_sum / n)) : "-", range.runner_up.value_or("-"),
                     cell("%.1f", 100 * range.margin)});
    }
  }
  table.print(out);
  print_baseline_changes(out, r);
}

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
    files.output("--gpus' claims", o.out.string() + ".claims");
    for (std::size_t w = 0; w < workers; ++w) {
      const std::filesystem::path part = gpu_part(o.out, static_cast<int>(w));
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
  request.inject = parse_injections(o.inject);
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

/// Without a GPU: compile every variant of the plan (or shard) for the archs, check the plan.
int run_compile_only(const sweep_options& o, sweep::sweep_request& request,
                     const std::string& why) {
  sweep::sweep_result result;
  const std::vector<std::string> archs =
      jit::parse_arch_list(o.arch.empty() ? "sm_90a,sm_100a" : o.arch);
  sweep::journal log = open_journal(o, journal_key(request, false, archs), false);
  request.log = &log;
  std::cerr << "kk3tune sweep: no GPU (" << (why.empty() ? "no device" : why)
            << "): compiling every variant for " << join(archs, ", ")
            << " and checking the plan; nothing will be timed"
            << (log.state().units.empty() ? ""
                                          : " (" + std::to_string(log.state().units.size()) +
                                                " family/mode units from the journal)")
            << "\n";
  progress_printer progress("compile");
  progress.plain_every(200);
  sweep::compile_plan(request, archs, std::ref(progress), result);
  write_file_atomic(o.out, sweep::sweep_json(result));
  finish_journal(log);
  std::size_t modes = 0;
  for (const auto& f : result.families) modes += f.modes.size();
  std::cout << "plan " << request.config.file.string() << ": " << result.families.size()
            << " families, " << modes << " modes, " << result.config.tokens.size()
            << " token counts: ok" << shard_note(result) << "\n"
            << result.compiles << " variant compiles for " << join(archs, ", ") << ": "
            << result.compiles - result.compile_failures << " ok, " << result.compile_failures
            << " failed (" << cell("%.1f", result.wall_s) << " s)\n"
            << "nothing was timed: no GPU. Wrote " << o.out.string() << " (\"timed\": false)\n";
  for (const auto& rec : result.records) {
    if (rec.status == results::status::compile_failed)
      std::cout << "compile_failed: " << rec.family << "/" << rec.mode << "/" << rec.variant << ": "
                << rec.reason << "\n";
  }
  std::cout << untimed_summary(result.records, archs, o.out,
                               committed_h200_sweep(request.config_dir));
  return result.compile_failures ? k_exit_failure : k_exit_environment;
}

/// The summary of a measured sweep; exit 1 when a variant is not ok (unlaunchable ones are no
/// failure: never measured where they cannot run).
int report_sweep(const sweep::sweep_result& result, const std::filesystem::path& out) {
  print_summary(std::cout, result);
  std::size_t dropped = 0, unlaunchable = 0, failed = 0;
  for (const auto& rec : result.records) {
    dropped += rec.status == results::status::dropped;
    unlaunchable += rec.status == results::status::unlaunchable;
    failed += rec.status != results::status::dropped &&
              rec.status != results::status::unlaunchable && rec.status != results::status::ok;
  }
  std::cout << "\n"
            << result.records.size() << " records (" << dropped << " screened out, " << unlaunchable
            << " unlaunchable, " << failed << " not ok), " << result.compiles << " compiles ("
            << result.compile_failures << " failed), copy ceiling "
            << cell("%.3f", result.ceiling_tb_s) << " TB/s, " << cell("%.1f", result.wall_s)
            << " s on " << result.context->gpu.name << shard_note(result) << "; wrote "
            << out.string() << "\n";
  return failed ? k_exit_failure : k_exit_ok;
}

/// The measuring process itself (a supervised worker, or --no-isolation): runs the sweep, writes
/// `out`; on a variant's fault reports it to the supervisor; on any other error keeps what was
/// measured in OUT.partial and the journal.
int measure(const sweep_options& o, sweep::sweep_request& request, sweep::journal& log,
            const std::filesystem::path& out) {
  if (o.worker) watch::attach();
  sweep::sweep_result result;
  progress_printer progress("sweep");
  // Ctrl-C or a timeout's SIGTERM: finish the current count, keep what was measured.
  std::signal(SIGINT, [](int) { sweep::request_stop(); });
  std::signal(SIGTERM, [](int) { sweep::request_stop(); });
  try {
    sweep::run_sweep(request, std::ref(progress), result);
  } catch (const error& e) {
    if (o.worker && e.kind() == error_kind::launch && !watch::faulting_variant().empty()) {
      // One variant's fault: the supervisor records it and starts a worker without it. This
      // process's CUDA context is lost; leave without tearing anything down.
      watch::report_fault(watch::faulting_variant(), e.what());
      std::fflush(stderr);
      std::_Exit(sweep::k_exit_worker_restart);
    }
    if (!result.records.empty()) {
      const std::filesystem::path partial = out.string() + ".partial";
      write_file_atomic(partial, sweep::sweep_json(result));
      std::cerr << "kk3tune sweep: stopped early; " << result.records.size() << " records kept in "
                << partial.string()
                << "; `kk3tune sweep --resume` with the same flags continues from "
                << log.file().string() << "\n";
    }
    throw;
  }
  write_file_atomic(out, sweep::sweep_json(result));
  finish_journal(log);
  return report_sweep(result, out);
}

int run_sweep_command(const global_options& global, const sweep_options& o) {
  sweep::sweep_request request = make_request(global, o);
  std::string why;
  const bool gpu = device::driver_available(&why) && device::device_count() > 0;
  if (gpu && !o.worker)
    families::require_archs(plan_families(request), {device::first_gpu().arch}, "the GPU's arch");
  if (o.dry_run) {
    const std::vector<std::string> archs =
        gpu ? std::vector<std::string>{device::first_gpu().arch}
            : jit::parse_arch_list(o.arch.empty() ? "sm_90a,sm_100a" : o.arch);
    return print_sweep_preview(request, archs, gpu, why.empty() ? "no device" : why);
  }
  if (!gpu) {
    if (!o.gpus.empty())
      std::cerr << "kk3tune sweep: --gpus " << o.gpus
                << ": no GPU, so no workers: compiling in this process\n";
    return run_compile_only(o, request, why);
  }
  const std::string key = journal_key(request, true);
  if (o.worker && !o.gpu_worker.empty()) {  // one of --gpus' workers: its part of the result
    const sweep::shard_spec w = sweep::parse_shard(o.gpu_worker);
    request.claims_dir = o.claims;
    request.worker = w.index - 1;
    request.workers = w.count;
    const std::filesystem::path part = gpu_part(o.out, request.worker);
    sweep::journal log = sweep::journal::resume(sweep::journal_path(part), key);
    request.log = &log;
    request.seed = log.state().seed;
    return measure(o, request, log, part);
  }
  const std::vector<int> gpus =
      o.worker || o.gpus.empty() ? std::vector<int>{} : parse_gpus(o.gpus);
  if (gpus.size() > 1 && o.no_isolation) {
    throw error(error_kind::usage, "--no-isolation with --gpus " + o.gpus +
                                       ": each GPU's worker is a supervised process");
  }
  if (gpus.size() > 1) return run_on_gpus(global, o, key, gpus);
  sweep::journal log = open_journal(o, key, true);
  request.log = &log;
  request.seed = log.state().seed;  // drawn once, when the journal was started
  if (!o.worker && !o.no_isolation) {
    // The GPU work runs in workers this process supervises (src/sweep/supervisor.hpp).
    sweep::supervisor_options so;
    so.worker_argv = global.argv;
    so.worker_argv.push_back("--worker");
    so.variant_timeout_s = o.variant_timeout_s;
    if (!gpus.empty()) so.env.emplace_back("CUDA_VISIBLE_DEVICES", visible_device(gpus.front()));
    return sweep::supervise(so, log);
  }
  return measure(o, request, log, o.out);
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
