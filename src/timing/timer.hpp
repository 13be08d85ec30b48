#pragma once
// The measurement engine: per-launch GPU time of kernel variants in four modes, adaptive
// sampling, SM clock per sample, throttled samples dropped, candidates interleaved.
#include <memory>
#include <string>
#include <vector>

#include "device/device_info.hpp"
#include "device/launch.hpp"
#include "families/family.hpp"
#include "results/objective.hpp"
#include "results/time_file.hpp"
#include "timing/helper_kernels.hpp"
#include "timing/statistics.hpp"

namespace kk3::timing {

// What a time measures is the result model's (results/objective.hpp); the engine takes it.
using results::chain_model;
using results::consumer_model;
using results::consumer_reads;
using results::objective;
using results::producer_model;
using results::timing_mode;

/// Settings of the measurement engine.
struct timing_options {
  timing_mode mode = timing_mode::graph;
  bool pdl = true;                  ///< launch the variant with the PDL attribute, as served
  stopping_rule stop;               ///< when a candidate has enough samples
  double throttle_ratio = 0.9;      ///< a sample below this x the median SM clock is dropped
  double graph_target_us = 200;     ///< graph mode: launches per graph to fill this long
  unsigned graph_min_launches = 4;  ///< graph mode: at least this many launches per graph
  unsigned warm_launches = 3;       ///< launches before the estimate (module load, caches)
  unsigned estimate_launches = 5;   ///< launches timed for the per-launch estimate
  unsigned warm_replays = 2;        ///< graph mode: replays before the first sample (upload)
  chain_model chain;                ///< chain mode: the neighbours
  unsigned chain_max = 50;          ///< chain mode: at most this many chains per graph (as many as
                                    ///< fill graph_target_us, at least graph_min_launches)
  unsigned long long probe_cycles = 40000;  ///< SM cycles the clock probe counts
  unsigned placements = 0;  ///< samplers per candidate, each with its own graphs, streams and
                            ///< buffers, taking the samples in turn (the k-th made when sample
                            ///< k is due), so a figure averages over where they lie in memory;
                            ///< 0: the sampler's choice (chain: 1-8 by duration; else 1)
};

/// Options that time under objective `o` (its mode, PDL and chain model), the rest default.
timing_options options_for(const objective& o);

/// One kernel to measure.
struct candidate {
  std::string label;     ///< names it in messages and NVTX ranges (no '/')
  long long tokens = 0;  ///< T, carried by NVTX ranges
  CUfunction function = nullptr;
  device::launch_config config;                  ///< geometry; `pdl` is set from timing_options
  std::vector<families::workspace*> workspaces;  ///< one, or several to rotate in cold mode
  double bytes_moved = 0;                        ///< per launch, for bandwidth
};

/// The candidate for variant `v` of family `f` in mode `m` at shape `s`: its geometry and
/// bytes moved from the family, launched on `workspaces`.
[[nodiscard]] candidate make_candidate(const families::family& f, const space::variant& v,
                                       const space::mode& m, const families::shape& s,
                                       CUfunction function,
                                       std::vector<families::workspace*> workspaces);

/// The outcome of measuring one candidate.
struct measurement {
  std::string label;
  timing_mode mode = timing_mode::graph;
  bool pdl = true;
  std::vector<double> samples_us;  ///< every sample: per-launch time (chain: added latency);
                                   ///< isolated and cold: event interval minus event_overhead_us
  double event_overhead_us = 0;    ///< isolated and cold: the interval of an event pair with
                                   ///< nothing between, measured this run; subtracted from
                                   ///< each sample so the time matches the kernel's own duration
  std::vector<double> clock_mhz;   ///< SM clock probed before each sample (0 = unknown)
  std::vector<bool> throttled;     ///< samples dropped for a low clock
  sample_stats stats;              ///< over the kept samples, microseconds
  stop_reason stopped = stop_reason::running;
  unsigned launches_per_sample = 1;  ///< graph: launches per replay; chain: chains per replay
  unsigned rotated_workspaces =
      1;  ///< cold: input sets cycled through; chain: workspaces the chains use in turn
  unsigned placements = 1;  ///< samplers the samples came from in turn (timing_options::placements)
  double bytes_moved = 0;   ///< per launch
  bool fits_in_l2 = false;  ///< whether bytes_moved fits in L2 (hot numbers may beat HBM)
  double wall_s = 0;        ///< wall time of warm-up and sampling
  double chain_total_us = 0;  ///< chain: median time per chain with the variant
  double chain_base_us = 0;   ///< chain: median time per chain without it
};

/// The measurement as an entry of a time result file (results/time_file.hpp).
[[nodiscard]] results::time_entry time_entry_of(const measurement& m);

class l2_flusher;

/// Measures candidates of one shape on one GPU.
class timer {
 public:
  timer(const device::device_info& info, const helper_kernels& helpers);
  ~timer();

  /// Measures all candidates, interleaved (A, B, C, A, B, C, ...) until each one's stopping
  /// rule holds, so drift hits them alike. Throws error(launch) if a kernel faults.
  [[nodiscard]] std::vector<measurement> measure(const std::vector<candidate>& candidates,
                                                 const timing_options& options) const;

  /// How many input sets cold mode rotates through for a working set of this size.
  unsigned cold_rotation(double working_set_bytes) const;
  /// How many workspaces chain mode may spread its chains over for a working set of this size:
  /// as many as fit in half the L2, at most 8 (the sampler uses at most a quarter of a replay's
  /// chains' worth). Each allocation lands elsewhere in memory, so a figure averages over where
  /// the data lies instead of taking one placement's luck.
  unsigned chain_rotation(double working_set_bytes) const;

 private:
  /// The L2 flush buffer of cold and chain modes: allocated and filled on first use, then kept
  /// for every measure() call (a sweep makes thousands).
  const l2_flusher& flusher() const;

  const device::device_info& m_info;
  const helper_kernels& m_helpers;
  mutable std::unique_ptr<l2_flusher> m_flusher;
};

}  // namespace kk3::timing
