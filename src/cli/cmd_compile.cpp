// `kk3tune compile`: compiles every variant for the target archs (the GPU's, or --arch) in
// parallel through the cache, and prints status, time, cache hit and resource use of each. A
// cache hit's time reads "cached" (JSON: null): the time of the compile it stored is no time
// this run spent.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <unistd.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "device/device_info.hpp"
#include "device/driver_api.hpp"
#include "families/registry.hpp"
#include "jit/batch.hpp"
#include "jit/nvrtc_archs.hpp"
#include "jit/requests.hpp"
#include "jit/toolkit.hpp"

namespace kk3::cli {
namespace {

struct compile_options {
  std::string family;           ///< only this family; empty = all, examples included
  std::string mode;             ///< only this mode
  std::string arch;             ///< comma-separated archs; empty = the GPU's
  unsigned jobs = 0;            ///< compile threads; 0 = one per hardware thread
  cache_options cache;          ///< --cache-dir, --no-cache
  bool show_logs = false;       ///< print the NVRTC log of every variant
  std::string format = "text";  ///< --format text|json
};

std::string num(int v) {
  return v < 0 ? "?" : std::to_string(v);
}

}  // namespace

/// The archs to compile for: --arch, else the arch of GPU 0; throws error(device) with a hint
/// when neither is available.
std::vector<std::string> target_archs(const std::string& arch_flag) {
  if (!arch_flag.empty()) return jit::parse_arch_list(arch_flag);
  std::string why;
  if (!device::driver_available(&why) || device::device_count() == 0) {
    throw error(error_kind::device,
                (why.empty() ? std::string("no GPU") : why) +
                    "; to compile without a GPU give --arch, e.g. --arch sm_90a,sm_100a");
  }
  return {device::first_gpu().arch};
}

namespace {

/// The compile requests of the chosen families (of --mode's mode only, when given).
std::vector<jit::compile_request> compile_requests(
    const compile_options& options, const std::vector<const families::family*>& chosen,
    const located_dir& kernels, const std::filesystem::path& config_dir,
    const std::vector<std::string>& archs) {
  std::vector<jit::compile_request> requests;
  for (const families::family* f : chosen) {
    families::family_space s = families::load_family_space(*f, config_dir);
    require_kernel_source(kernels, s.config.source, f->name());
    if (!options.mode.empty()) {
      std::vector<space::mode> kept;
      for (const auto& m : s.config.modes)
        if (m.name == options.mode) kept.push_back(m);
      if (kept.empty()) {
        if (!options.family.empty())
          static_cast<void>(
              space::find_mode(s.config, options.mode));  // throws error(usage) naming the modes
        continue;
      }
      s.config.modes = kept;
    }
    auto r = jit::make_requests(s.config, s.variants, archs, kernels.dir);
    requests.insert(requests.end(), r.begin(), r.end());
  }
  return requests;
}

/// A compile run: every result in request order, its wall time, where it cached and on how many
/// threads; its totals follow from the results.
struct compile_run {
  std::vector<jit::compile_result> results;
  double wall_s = 0;
  std::string cache;     ///< the cache folder, or "off"
  unsigned threads = 0;  ///< compile threads

  std::size_t failed() const {
    return static_cast<std::size_t>(std::count_if(
        results.begin(), results.end(), [](const jit::compile_result& r) { return !r.ok; }));
  }
  std::size_t hits() const {
    return static_cast<std::size_t>(std::count_if(
        results.begin(), results.end(), [](const jit::compile_result& r) { return r.cache_hit; }));
  }
};

/// Every request compiled, with progress on stderr: on a terminal one line rewritten in place;
/// into a pipe or a log a line at each tenth of the way, and each failure as it happens, so a
/// piped compile is never silent. The run's results and wall time (its totals are the caller's).
compile_run compile_with_progress(const jit::jit_engine& engine,
                                  const std::vector<jit::compile_request>& requests) {
  const auto start = std::chrono::steady_clock::now();
  const bool terminal = ::isatty(STDERR_FILENO);
  std::size_t finished = 0, failures = 0, next_tenth = 1;
  auto results = engine.compile_all(requests, [&](const jit::compile_result& r) {
    ++finished;
    const std::size_t total = requests.size();
    if (terminal) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %.70s", finished, total, r.label.c_str());
      if (finished == total) std::fprintf(stderr, "\r\033[K");
      return;
    }
    if (!r.ok)
      std::fprintf(stderr, "compile: %s: compile_failed (%zu so far)\n", r.label.c_str(),
                   ++failures);
    if (finished * 10 >= next_tenth * total) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "compile %zu/%zu (%.0f%%, %.1f s)\n", finished, total,
                   100.0 * finished / total, s);
      while (finished * 10 >= next_tenth * total) ++next_tenth;
    }
    std::fflush(stderr);
  });
  compile_run run;
  run.results = std::move(results);
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

/// The compiles as one JSON document on stdout (--format json).
void print_compile_json(const compile_options& options, const std::vector<std::string>& archs,
                        const compile_run& run) {
  using nlohmann::ordered_json;
  auto usage = [](int v) { return v < 0 ? ordered_json(nullptr) : ordered_json(v); };
  ordered_json list = ordered_json::array();
  for (const auto& r : run.results) {
    ordered_json j = {
        {"variant", r.label.substr(0, r.label.find(" @ "))},
        {"arch", r.arch},
        {"status", r.ok ? "ok" : "compile_failed"},
        {"compile_ms", r.cache_hit ? ordered_json(nullptr) : ordered_json(r.compile_s * 1e3)},
        {"cache", r.cache_hit ? "hit" : (options.cache.no_cache ? "off" : "miss")},
        {"registers", usage(r.usage.registers)},
        {"spill_store_bytes", usage(r.usage.spill_store_bytes)},
        {"spill_load_bytes", usage(r.usage.spill_load_bytes)},
        {"shared_bytes", usage(r.usage.shared_bytes)}};
    if (!r.ok || options.show_logs) {
      j["options"] = r.options;
      j["log"] = r.log;
    }
    list.push_back(std::move(j));
  }
  const ordered_json out = {{"kind", "compile"},
                            {"archs", archs},
                            {"compiles", run.results.size()},
                            {"ok", run.results.size() - run.failed()},
                            {"failed", run.failed()},
                            {"cache_hits", run.hits()},
                            {"cache", run.cache},
                            {"wall_s", run.wall_s},
                            {"threads", run.threads},
                            {"results", list}};
  std::cout << out.dump(2) << "\n";
}

/// The compiles as a table on stdout, the logs of the failures, and the totals.
void print_compile_table(const compile_options& options, const std::vector<std::string>& archs,
                         const compile_run& run) {
  text_table table({"variant", "arch", "status", "compile_ms", "cache", "regs", "spill_st",
                    "spill_ld", "smem_bytes"},
                   {false, false, false, true, false, true, true, true, true});
  for (const auto& r : run.results) {
    const std::string label = r.label.substr(0, r.label.find(" @ "));
    table.add_row({label, r.arch, r.ok ? "ok" : "compile_failed",
                   r.cache_hit ? "cached" : format_double("%.1f", r.compile_s * 1e3),
                   r.cache_hit ? "hit" : (options.cache.no_cache ? "off" : "miss"),
                   num(r.usage.registers), num(r.usage.spill_store_bytes),
                   num(r.usage.spill_load_bytes), num(r.usage.shared_bytes)});
  }
  table.print(std::cout);
  for (const auto& r : run.results) {
    if (!r.ok || options.show_logs) {
      std::cout << "\n--- " << r.label << (r.ok ? "" : ": compile_failed") << "\noptions:";
      for (const auto& o : r.options) std::cout << " " << o;
      std::cout << "\n" << r.log << "\n";
    }
  }
  std::cout << "\n"
            << run.results.size() << " variant compiles for " << archs.size()
            << " arch(s): " << run.results.size() - run.failed() << " ok, " << run.failed()
            << " failed, " << run.hits() << " from the cache (" << run.cache << "); "
            << format_double("%.2f", run.wall_s) << " s on " << run.threads << " threads\n";
}

int run_compile(const global_options& global, const compile_options& options) {
  const std::vector<std::string> archs = target_archs(options.arch);
  const located_dir kernels = find_kernel_dir(global.kernel_dir);
  const auto kernel_dir = kernels.dir;
  const auto config_dir = find_config_dir(global.config_dir).dir;
  jit::require_cuda_include_dir();  // a missing toolkit is reported before any config is read

  // A family whose kernel needs a newer arch is refused here, not by each of its compiles.
  const std::vector<const families::family*> chosen =
      families::select_families(options.family, true);
  families::require_archs(chosen, archs, options.arch.empty() ? "the GPU's arch" : "--arch");

  const std::vector<jit::compile_request> requests =
      compile_requests(options, chosen, kernels, config_dir, archs);
  if (requests.empty())
    throw error(error_kind::usage, "--mode: no family has mode '" + options.mode + "'");

  const auto engine_owner = jit::make_jit_engine(kernel_dir, options.cache.cache_dir,
                                                 options.cache.no_cache, options.jobs);
  const jit::jit_engine& engine = *engine_owner;

  compile_run run = compile_with_progress(engine, requests);
  run.threads = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  run.cache = options.cache.no_cache ? "off" : find_cache_dir(options.cache.cache_dir).dir.string();
  if (options.format == "json") {
    print_compile_json(options, archs, run);
  } else {
    print_compile_table(options, archs, run);
  }
  return run.failed() ? k_exit_failure : k_exit_ok;
}

}  // namespace

void add_compile_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto options = std::make_shared<compile_options>();
  CLI::App* cmd = app.add_subcommand("compile",
                                     "Compile every variant (through the cache) and report time, "
                                     "registers, spills and shared memory");
  cmd->add_option("--family", options->family,
                  "only this family (default: all, examples included)");
  cmd->add_option("--mode", options->mode, "only this mode");
  cmd->add_option("--arch", options->arch,
                  "comma-separated archs, e.g. sm_90a,sm_100a (default: the GPU's)");
  cmd->add_option("--jobs,-j", options->jobs, "compile threads (default: one per hardware thread)");
  add_cache_options(cmd, options->cache);
  cmd->add_flag("--show-logs", options->show_logs,
                "print the NVRTC log and options of every variant");
  add_text_or_json_option(cmd, options->format, "one object per variant compile, and the totals");
  cmd->callback([&global, &exit_code, options] { exit_code = run_compile(global, *options); });
}

}  // namespace kk3::cli
