#pragma once
// The sweep (SPEC 2): for each family, mode, model shape and token count, compile (in parallel,
// cached, overlapped with measurement), screen the variants by successive halving, measure the
// survivors to the noise target, verify every finalist, and select the dispatch table.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/paths.hpp"
#include "families/shape.hpp"
#include "results/context.hpp"
#include "results/model.hpp"
#include "results/objective.hpp"
#include "results/result_set.hpp"
#include "select/selection.hpp"
#include "sweep/sweep_config.hpp"
#include "timing/statistics.hpp"

namespace kk3::sweep {

class journal;

// What a sweep produces is the result model's (results/model.hpp).
using results::dispatch_entry;
using results::family_summary;
using results::record;
using results::verification;

/// sweep --baseline FILE: a committed sweep's dispatch tables, whose choices are the incumbents.
struct baseline_tables {
  std::filesystem::path file;
  std::string digest;  ///< of the file's bytes
  /// Item key (shape_key) -> its ranges: first and last measured token count, variant.
  std::map<std::string, std::vector<std::tuple<long long, long long, std::string>>> tables;
  /// The baseline's choice at `tokens` in the table of item `key`, if it has one.
  std::optional<std::string> at(const std::string& key, long long tokens) const;
};

/// Shard I of N of a plan's work items (sweep/plan.hpp); 1/1 is the whole plan.
struct shard_spec {
  int index = 1, count = 1;
  bool whole() const { return count == 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Progress of a sweep: called after each unit of work with a line describing it.
struct progress_event {
  std::size_t done = 0, total = 0;
  std::string current;  ///< e.g. "attn_res/common_nb8 T=64: 12 finalists"
  /// Seconds left, where the sweep estimates it (compiles: sweep/compile_eta.hpp); else none,
  /// and the printer takes the rate so far.
  std::optional<double> eta_s;
};
using progress_fn = std::function<void(const progress_event&)>;

/// What to run and where things are.
struct sweep_request {
  sweep_config config;
  std::string family_filter;             ///< --family
  std::vector<std::string> mode_filter;  ///< --mode: only these of the plan's modes
  std::string
      timing;  ///< --timing: every family's objective timed in this mode (empty: the plan's)
  std::vector<std::string> variant_filter;  ///< --variant: only these ids (and the reference)
  std::vector<long long> tokens;            ///< --tokens (overrides the plan's)
  std::filesystem::path kernel_dir, config_dir;
  std::filesystem::path cache_dir;
  bool no_cache = false;
  unsigned long long seed = 0;
  std::vector<std::string> argv;
  /// A family config given as --config (its config is read from there, not config_dir).
  std::optional<std::filesystem::path> family_config_file;
  /// The journal to continue and append to (OUT.journal), if any: finished units found there are
  /// taken from it instead of being done again, and each unit finished now is appended.
  journal* log = nullptr;
  /// Test-only fault injection (--inject-fault): variant id -> KK3_INJECT_FAULT value
  /// (kernels/common/fault_injection.cuh), compiled into that variant in every mode.
  std::map<std::string, int> inject;
  /// --baseline: the incumbent at each count (null: none).
  std::shared_ptr<const baseline_tables> baseline;
  /// --shard I/N: only these items of the plan.
  shard_spec shard;
  /// --gpus: this process is worker `worker` (0-based) of `workers`, each on its own GPU, pulling
  /// the plan's items from the claims folder (sweep/claims.hpp) instead of taking a shard's.
  std::filesystem::path claims_dir;
  int worker = 0, workers = 1;
};

/// Loads the plan's families and checks every mode, model shape and token count it names, and
/// that `kernels` (the request's kernel folder, as find_kernel_dir found it) holds each family's
/// kernel source, without compiling or touching a GPU. Throws error(config/usage) for a bad plan.
void check_plan(const sweep_request& request, const located_dir& kernels);

/// Without a GPU: compiles every variant of the plan for `archs`; nothing is timed (the plan's
/// shapes are checked by check_plan, which the CLI calls first). `out` is the result file's model,
/// filled as the sweep goes: its plan block first, each unit's records as its compiles land.
void compile_plan(const sweep_request& request, const std::vector<std::string>& archs,
                  const progress_fn& progress, results::result_set& out);

/// Asks a running sweep to stop after the shape it is measuring (safe from a signal handler);
/// run_sweep then throws error(usage, "interrupted") with everything measured so far in `out`.
void request_stop();

/// On GPU 0. `out` is the result file's model, filled where each value is measured or chosen: the
/// plan block and the context (with the copy ceiling) first, each record with its throughput as it
/// is measured, each dispatch entry (winner knobs, baseline changes) as it is selected. So when a
/// fault that ends the CUDA context is thrown (error(launch)), everything measured before it is
/// still there.
void run_sweep(const sweep_request& request, const progress_fn& progress, results::result_set& out);

}  // namespace kk3::sweep
