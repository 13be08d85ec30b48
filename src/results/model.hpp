#pragma once
// The value model of a result: what the sweep fills, the journal and the result file store, and
// merge, compare, report and emit read (STYLE.md, "Data out"). Plain values; the codec
// (results/codec.hpp) is the only place that turns them into text and back.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/dims.hpp"
#include "results/objective.hpp"
#include "results/sample_stats.hpp"
#include "select/selection.hpp"

namespace kk3::results {

/// What became of a variant at a shape, or of its verification.
enum class status {
  ok,              ///< final round, verified (a verification: it passed)
  dropped,         ///< screened out by successive halving
  compile_failed,  ///< NVRTC refused it
  launch_failed,   ///< a launch failed, or the variant ended its worker process
  timeout,         ///< it hung its worker process
  mismatch,        ///< its outputs differ from the reference's beyond the tolerance
  pdl_hazard,      ///< it reads an upstream output before griddepcontrol.wait
  unsupported,     ///< the family cannot run it at the verification shapes
  unlaunchable,    ///< the GPU cannot launch it at this shape: no statistics, never selected
  unverified,      ///< a finalist before verification, or (no GPU) compiled only
};

/// Knob values, in the config's knob order.
using knob_values = std::vector<std::pair<std::string, long long>>;

/// A finalist's verification outcome (one per family x mode x variant).
struct verification {
  results::status status = results::status::ok;
  std::string reason;
  unsigned long long seed = 0;
  long long checks = 0;
  std::vector<std::string> shapes;
  /// "tensor[index] expected X got Y at SHAPE (against ...)", or empty
  std::string first_mismatch;
};

/// Token counts from min_tokens to max_tokens, both included: a range of a dispatch table.
struct token_range {
  long long min_tokens = 0, max_tokens = 0;

  [[nodiscard]] bool contains(long long tokens) const {
    return tokens >= min_tokens && tokens <= max_tokens;
  }
};

/// An untimed sweep's launch of a variant at one of the plan's token counts.
struct token_grid {
  long long tokens = 0;  ///< T
  long long ctas = 0;    ///< CTAs of the launch's grid
};

/// An untimed sweep's compile of one variant for one arch (no GPU): what NVRTC made of it, the
/// launch at the record's shape, and the theoretical occupancy on the arch's named GPU
/// (device/occupancy.hpp). -1: unknown (a count the compile did not report).
struct arch_resources {
  std::string arch;                       ///< e.g. "sm_90a"
  int registers = -1;                     ///< per thread
  int spill_store_bytes = -1;             ///< bytes of spill stores (from NVRTC's log)
  int spill_load_bytes = -1;              ///< bytes of spill loads
  int shared_bytes = -1;                  ///< static shared memory per CTA, bytes
  int stack_bytes = -1;                   ///< stack frame per thread, bytes
  int threads_per_cta = 0;                ///< the launch's, from the family's geometry
  long long dynamic_shared_bytes = 0;     ///< the launch's dynamic shared memory per CTA, bytes
  int cluster_ctas = 1;                   ///< CTAs per thread-block cluster (1: none)
  std::string target;                     ///< the named GPU ("H200"); empty: none for this arch
  int sm_count = 0;                       ///< the target's SMs
  int ctas_per_sm = 0, warps_per_sm = 0;  ///< resident on one SM of the target
  double occupancy = 0;                   ///< resident warps over the SM's maximum, 0 to 1
  std::string limiter;                    ///< what bounds ctas_per_sm (device::occupancy::limiter)
  /// The ranges of the record's table on this arch where the committed dispatch tables choose
  /// the variant (plan_block::shipped names them); empty: none, or no committed tables here.
  std::vector<token_range> ships;

  /// Whether the compile spills (stores or loads).
  [[nodiscard]] bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
  /// Whether the committed dispatch tables choose the variant at `tokens` on this arch.
  [[nodiscard]] bool ships_at(long long tokens) const;
  /// Waves per SM of a launch of `ctas` CTAs on the target: ctas / (sm_count x ctas_per_sm);
  /// -1 without a target, or where no CTA fits on an SM.
  [[nodiscard]] double waves(long long ctas) const;
};

/// One family x mode x shape x variant: what a sweep measured, a journal holds, or a result file
/// was read into (results/reader.hpp; a kind "time" file gives one per entry).
struct record {
  std::string family, mode, variant;
  long long tokens = 0;
  dims shape;         ///< the family's key dimensions (families::family::key_of)
  knob_values knobs;  ///< empty when the file has none (kind time)
  bool reference = false;
  /// time files: ok; sweeps: the record's status (an unlaunchable record has no statistics
  /// unless verification found it so)
  results::status status = results::status::ok;
  std::string reason;
  int rounds = 0;  ///< measurement rounds it took part in
  /// a finalist's verification (read from a file: its status and first_mismatch, and seed,
  /// checks and shapes where the file has them)
  std::optional<verification> verified;
  std::optional<sample_stats> stats;  ///< microseconds
  std::vector<double> samples_us;
  double bytes_moved = 0;
  /// TB/s at the median, and its fraction of the run's copy ceiling: what the file stored, or
  /// (a record just measured) set_throughput's (results/codec.hpp). The codec writes them as
  /// they are, so a record read and written again keeps its bytes.
  double achieved_tb_s = 0, fraction_of_ceiling = 0;
  std::string timing_mode;  ///< time files: "graph", "isolated", "cold" or "chain"; sweeps: empty
  /// Time files: the entry's timing.pdl, timing.launches_per_sample and timing.stopped, where it
  /// has them (none, 0 and empty otherwise, and in sweeps).
  std::optional<bool> pdl;
  double launches_per_sample = 0;
  std::string stopped;
  /// Read from a file: what the time stands for, a time entry's timing.objective (before schema
  /// 3: its mode and PDL) or its sweep family's objective (before schema 3: graph). Only times
  /// under one objective are comparable. (A sweep's records take their family's.)
  results::objective objective;
  std::string at;  ///< the JSON pointer it was read from, for messages; empty when not read
  /// An untimed sweep's compile record: per arch compiled, its resources (empty otherwise).
  std::vector<arch_resources> resources;
  /// An untimed sweep's compile record: its launch's grid at each of the plan's token counts, at
  /// the record's model shape, ascending (empty otherwise, and in files from before it).
  std::vector<token_grid> grids;

  /// "family/mode/T64-H16/variant": what compare matches records by.
  [[nodiscard]] std::string key() const;
};

/// A count of a table swept with --baseline whose variant changed against the baseline's.
struct baseline_change {
  long long tokens = 0;
  std::string from, to;              ///< the baseline's variant, and this run's
  bool from_qualified = false;       ///< the baseline's variant was measured and qualified here
  double gain = 0, gain_sigmas = 0;  ///< over the incumbent (select::choice)
};

/// A table's part of sweep --baseline: how many of its counts the baseline held, and the changes.
struct baseline_summary {
  long long counts = 0;
  std::vector<baseline_change> changes;
};

/// The dispatch ranges of one family x mode x model shape.
struct dispatch_entry {
  std::string family, mode;
  dims shape;                           ///< the family's key dimensions
  std::vector<select::range> ranges;    ///< ascending token counts
  std::vector<select::choice> choices;  ///< per token count (the ranges merge them; not read)
  /// sweep --baseline: what the result file says of the baseline (the sweep's is
  /// summarize_baseline)
  std::optional<baseline_summary> baseline;
  std::string at;  ///< the JSON pointer it was read from ("/dispatch/3"), for messages; or empty

  /// The JSON pointer of range `i` ("/dispatch/3/ranges/0"), for messages.
  [[nodiscard]] std::string range_at(std::size_t i) const;

  /// With sweep --baseline: of these choices, how many counts the baseline had a choice at, and
  /// those whose variant changed against it (none without a baseline table).
  [[nodiscard]] std::optional<baseline_summary> summarize_baseline() const;
};

/// What a family looked like to the sweep (for the result file and codegen).
struct family_summary {
  std::string family, entry, source;
  std::vector<std::string> shape_keys;  ///< the names of the family's key dimensions
  std::vector<std::string> knobs;
  std::string reference;
  knob_values reference_knobs;
  /// mode -> its defines (name, value), in the config's order
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> modes;
  results::objective objective;  ///< what its selection minimised (SPEC 2, "Objective")
  /// Read from a file: where it gives them, "shape_keys" (schema 2) or "shape_key" (schema 1)
  std::string shape_keys_field = "shape_keys";
};

/// The sweep's item keys: "family/mode/heads=16" for a shape and "family/mode/heads=16/T64" for
/// one of its token counts (a family with no key dimension: "family/mode" and
/// "family/mode/T64"). The journal, --baseline and merge look units up by them.
[[nodiscard]] std::string shape_key(const std::string& family, const std::string& mode,
                                    const dims& shape);
[[nodiscard]] std::string count_key(const std::string& shape, long long tokens);

}  // namespace kk3::results
