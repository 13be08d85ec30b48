#include "sweep/run.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/seed.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "core/watch.hpp"
#include "device/driver_api.hpp"
#include "merge/merge.hpp"
#include "results/sweep_file.hpp"
#include "sweep/journal.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress_printer.hpp"
#include "sweep/shipped_marks.hpp"
#include "sweep/summary.hpp"
#include "sweep/supervisor.hpp"
#include "sweep/untimed_summary.hpp"

namespace kk3::sweep {
namespace {

/// What a journal belongs to: the plan's digest (the plan file and every flag that changes what is
/// swept) and the shard.
std::string journal_key(const sweep_request& r, bool timed,
                        const std::vector<std::string>& archs = {}) {
  return hasher().add(plan_digest(r, timed, archs)).add(r.shard.text()).hex();
}

/// The journal of this run: continued with --resume (or by a worker), else started.
journal open_journal(const run_options& o, const std::string& key, bool timed) {
  const std::filesystem::path file = journal_path(o.out);
  if (o.resume || o.worker) return journal::resume(file, key);
  return journal::create(file, key, seed_or_draw(o.seed), timed);
}

/// After the final file is written, the journal has served its purpose.
void finish_journal(const journal& log) {
  std::error_code ec;
  std::filesystem::remove(log.file(), ec);
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

/// A supervised worker (src/sweep/supervisor.hpp): this command line with `extra` arguments, on
/// GPU `gpu` (its CUDA_VISIBLE_DEVICES; -1: the inherited ones).
supervisor_options worker_options(const run_options& o, const std::vector<std::string>& extra,
                                  int gpu) {
  supervisor_options so;
  so.worker_argv = o.argv;
  so.worker_argv.insert(so.worker_argv.end(), extra.begin(), extra.end());
  so.variant_timeout_s = o.variant_timeout_s;
  if (gpu >= 0) so.env.emplace_back("CUDA_VISIBLE_DEVICES", visible_device(gpu));
  return so;
}

/// The journals of --gpus' workers, one per GPU: continued where a stopped run left them, else
/// started. One seed for every worker: --seed, else a resumed worker's, else drawn now.
std::vector<journal> gpu_journals(const run_options& o, const std::string& key,
                                  std::size_t workers) {
  std::vector<std::optional<journal>> resumed(workers);
  unsigned long long seed = o.seed;
  std::error_code ec;
  for (std::size_t w = 0; w < workers && o.resume; ++w) {
    const auto file = journal_path(gpu_part(o.out, static_cast<int>(w)));
    if (!std::filesystem::exists(file, ec)) continue;  // that worker had finished its part
    resumed[w] = journal::resume(file, key);
    if (!seed) seed = resumed[w]->state().seed;
  }
  seed = seed_or_draw(seed);
  std::vector<journal> logs;
  for (std::size_t w = 0; w < workers; ++w) {
    logs.push_back(resumed[w] ? std::move(*resumed[w])
                              : journal::create(journal_path(gpu_part(o.out, static_cast<int>(w))),
                                                key, seed, true));
  }
  return logs;
}

/// The parts of --gpus' workers merged into o.out as `merge` would; then the parts and claims go.
void merge_gpu_parts(const run_options& o, std::size_t workers) {
  std::vector<merge::shard_input> parts;
  for (std::size_t w = 0; w < workers; ++w)
    parts.push_back(merge::read_shard(gpu_part(o.out, static_cast<int>(w))));
  const results::result_set merged = merge::merge_shards(std::move(parts), o.argv);
  write_file_atomic(o.out, results::sweep_file_text(merged));
  std::error_code ec;
  for (std::size_t w = 0; w < workers; ++w)
    std::filesystem::remove(gpu_part(o.out, static_cast<int>(w)), ec);
  std::filesystem::remove_all(gpu_claims(o.out), ec);
  std::cout << "\nmerged the parts of " << workers << " GPUs into " << o.out.string() << ": "
            << merged.records.size() << " records, " << merged.dispatch.size() << " tables\n";
}

/// --gpus with several GPUs: one supervised worker per GPU (CUDA_VISIBLE_DEVICES), each pulling
/// work items from OUT.claims and writing its part; the parts are merged into OUT as `merge`
/// would, then removed. A stopped run keeps parts, journals and claims: --resume continues it.
int run_on_gpus(const run_options& o, const std::string& key) {
  const std::filesystem::path claims = gpu_claims(o.out);
  std::error_code ec;
  if (!o.resume && std::filesystem::exists(claims, ec)) {
    throw error(
        error_kind::usage,
        claims.string() +
            ": a --gpus sweep to this --out was stopped: --resume continues it (or remove it)");
  }
  const std::size_t n = o.gpus.size();
  std::vector<journal> logs = gpu_journals(o, key, n);
  std::vector<int> codes(n, 0);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < n; ++w) {
    supervisor_options so =
        worker_options(o,
                       {"--worker", "--gpu-worker", std::to_string(w + 1) + "/" + std::to_string(n),
                        "--claims", claims.string()},
                       o.gpus[w]);
    so.name = "GPU " + std::to_string(o.gpus[w]);
    threads.emplace_back([so, w, &logs, &codes, &errors] {
      try {
        codes[w] = supervise(so, logs[w]);
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
  merge_gpu_parts(o, n);
  return *std::max_element(codes.begin(), codes.end());
}

/// The measuring process itself (a supervised worker, or not isolated): runs the sweep, writes
/// `out`; on a variant's fault reports it to the supervisor; on any other error keeps what was
/// measured in OUT.partial and the journal.
int measure(const run_options& o, sweep_request& request, journal& log,
            const std::filesystem::path& out) {
  if (o.worker) watch::attach();
  results::result_set result;
  progress_printer progress("sweep");
  // Ctrl-C or a timeout's SIGTERM: finish the current count, keep what was measured.
  std::signal(SIGINT, [](int) { request_stop(); });
  std::signal(SIGTERM, [](int) { request_stop(); });
  try {
    run_sweep(request, std::ref(progress), result);
  } catch (const error& e) {
    if (o.worker && e.kind() == error_kind::launch && !watch::faulting_variant().empty()) {
      // One variant's fault: the supervisor records it and starts a worker without it. This
      // process's CUDA context is lost; leave without tearing anything down.
      watch::report_fault(watch::faulting_variant(), e.what());
      std::fflush(stderr);
      std::_Exit(k_exit_worker_restart);
    }
    if (!result.records.empty()) {
      const std::filesystem::path partial = out.string() + ".partial";
      write_file_atomic(partial, results::sweep_file_text(result));
      std::cerr << "kk3tune sweep: stopped early; " << result.records.size() << " records kept in "
                << partial.string()
                << "; `kk3tune sweep --resume` with the same flags continues from "
                << log.file().string() << "\n";
    }
    throw;
  }
  write_file_atomic(out, results::sweep_file_text(result));
  finish_journal(log);
  return report_measured(std::cout, result, out);
}

}  // namespace

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

std::filesystem::path gpu_part(const std::filesystem::path& out, int worker) {
  return out.string() + ".gpu" + std::to_string(worker) + ".json";
}

std::filesystem::path gpu_claims(const std::filesystem::path& out) {
  return out.string() + ".claims";
}

int run_measured(sweep_request& request, const run_options& o) {
  const std::string key = journal_key(request, true);
  if (o.worker && !o.gpu_worker.empty()) {  // one of --gpus' workers: its part of the result
    const shard_spec w = parse_shard(o.gpu_worker);
    request.claims_dir = o.claims;
    request.worker = w.index - 1;
    request.workers = w.count;
    const std::filesystem::path part = gpu_part(o.out, request.worker);
    journal log = journal::resume(journal_path(part), key);
    request.log = &log;
    request.seed = log.state().seed;
    return measure(o, request, log, part);
  }
  if (o.gpus.size() > 1) return run_on_gpus(o, key);
  journal log = open_journal(o, key, true);
  request.log = &log;
  request.seed = log.state().seed;  // drawn once, when the journal was started
  if (!o.worker && o.isolated) {
    // The GPU work runs in workers this process supervises (src/sweep/supervisor.hpp).
    return supervise(worker_options(o, {"--worker"}, o.gpus.empty() ? -1 : o.gpus.front()), log);
  }
  return measure(o, request, log, o.out);
}

int run_compile_only(sweep_request& request, const run_options& o, const std::string& why) {
  results::result_set result;
  journal log = open_journal(o, journal_key(request, false, o.archs), false);
  request.log = &log;
  std::cerr << "kk3tune sweep: no GPU (" << (why.empty() ? "no device" : why)
            << "): compiling every variant for " << join(o.archs, ", ")
            << " and checking the plan; nothing will be timed"
            << (log.state().units.empty() ? ""
                                          : " (" + std::to_string(log.state().units.size()) +
                                                " family/mode units from the journal)")
            << "\n";
  progress_printer progress("compile");
  progress.plain_every(200);
  compile_plan(request, o.archs, std::ref(progress), result);
  const std::filesystem::path committed = committed_h200_sweep(request.config_dir);
  const std::string unmarked = mark_shipped(committed, result);
  write_file_atomic(o.out, results::sweep_file_text(result));
  finish_journal(log);
  std::size_t modes = 0;
  for (const auto& f : result.families) modes += f.modes.size();
  std::cout << "plan " << request.config.file.string() << ": " << result.families.size()
            << " families, " << modes << " modes, " << request.config.tokens.size()
            << " token counts: ok" << shard_note(result) << "\n"
            << result.plan->compiles << " variant compiles for " << join(o.archs, ", ") << ": "
            << result.plan->compiles - result.plan->compile_failures << " ok, "
            << result.plan->compile_failures << " failed ("
            << format_double("%.1f", result.plan->wall_s) << " s)\n"
            << "nothing was timed: no GPU. Wrote " << o.out.string() << " (\"timed\": false)\n";
  for (const auto& rec : result.records) {
    if (rec.status == results::status::compile_failed)
      std::cout << "compile_failed: " << rec.family << "/" << rec.mode << "/" << rec.variant << ": "
                << rec.reason << "\n";
  }
  std::cout << untimed_summary(result, o.out, committed, unmarked);
  return result.plan->compile_failures ? k_exit_failure : k_exit_environment;
}

}  // namespace kk3::sweep
