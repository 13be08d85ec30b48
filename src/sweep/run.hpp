#pragma once
// The run of a sweep (`kk3tune sweep`), given what it sweeps (sweep_request) and how it runs
// (run_options): the journal's life (started, or continued by --resume and by workers; removed
// once the result is written), where the GPU work runs (this process, one supervised worker, or
// one worker per GPU whose parts are merged into the result), what a run that stops early keeps
// (OUT.partial and the journal), and the summary it prints. The CLI parses flags into the two.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// How a sweep runs, beside what it sweeps.
struct run_options {
  std::filesystem::path out;       ///< the result file (its journal, partial file, parts beside it)
  bool resume = false;             ///< continue the journal a stopped run left
  unsigned long long seed = 0;     ///< the inputs' seed; 0: drawn once and kept in the journal
  double variant_timeout_s = 60;   ///< one variant's GPU work before its worker counts as hung
  bool isolated = true;            ///< GPU work in supervised workers (false: in this process)
  bool worker = false;             ///< this process is a supervised worker
  std::vector<std::string> argv;   ///< this process's command line: a worker runs it with --worker
  std::vector<int> gpus;           ///< several: one worker per GPU; one: that GPU; none: GPU 0
  std::string gpu_worker;          ///< "I/N": this process is worker I of --gpus' N
  std::filesystem::path claims;    ///< the claims folder of --gpus' workers (a worker's)
  std::vector<std::string> archs;  ///< without a GPU: the archs every variant is compiled for
};

/// --inject-fault VARIANT=KIND (test only) -> variant id -> KK3_INJECT_FAULT value (KIND one of
/// illegal_address, trap, hang, slow); throws error(usage) naming the item otherwise.
[[nodiscard]] std::map<std::string, int> parse_injections(const std::vector<std::string>& items);

/// --gpus: "all" (every GPU the driver sees) or a comma list of device numbers (one named twice
/// runs two workers on it, with a warning); throws error(usage) naming what is not a GPU here.
[[nodiscard]] std::vector<int> parse_gpus(const std::string& text);

/// Worker w's part of a --gpus sweep to `out`: OUT.gpu<w>.json (its journal beside it).
[[nodiscard]] std::filesystem::path gpu_part(const std::filesystem::path& out, int worker);
/// The claims folder of a --gpus sweep to `out`: OUT.claims.
[[nodiscard]] std::filesystem::path gpu_claims(const std::filesystem::path& out);

/// The sweep on the GPU: measured, selected, written to o.out and summarised on stdout. Returns
/// the exit code: 0 swept, 1 a variant not ok, else a worker's (3: a device problem).
int run_measured(sweep_request& request, const run_options& o);

/// Without a GPU (`why`): every variant of the plan compiled for o.archs and the plan checked;
/// the untimed result written to o.out. Returns 3, or 1 when a compile failed.
int run_compile_only(sweep_request& request, const run_options& o, const std::string& why);

}  // namespace kk3::sweep
