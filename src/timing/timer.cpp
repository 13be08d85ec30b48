#include "timing/timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/watch.hpp"
#include "device/check.hpp"
#include "device/handles.hpp"
#include "timing/gate.hpp"

namespace kk3::timing {

/// A buffer twice the L2's size and the kernel that reads it: after it, nothing a kernel left
/// in L2 is there. One per timer, shared by every candidate it measures (cold and chain modes).
class l2_flusher {
 public:
  l2_flusher(const helper_kernels& h, const device::device_info& info)
      : m_h(h),
        m_info(info),
        m_words(static_cast<unsigned long long>(2 * info.l2_bytes / 16)),
        m_buffer(m_words * 16),
        m_sink(16) {
    device::stream s;
    m_buffer.fill(0x3c, s.get());  // defined contents; done before any sampler's stream reads it
    s.synchronize();
  }
  void launch(CUstream s) const {
    CUdeviceptr buf = m_buffer.ptr(), sink = m_sink.ptr();
    unsigned long long words = m_words;
    void* args[] = {&buf, &words, &sink};
    device::launch_config flush;
    flush.grid.x = static_cast<unsigned>(m_info.sm_count * 4);
    flush.block.x = 512;
    device::launch(m_h.l2_flush(), s, flush, args);
  }

 private:
  const helper_kernels& m_h;
  const device::device_info& m_info;
  unsigned long long m_words;
  device::device_buffer m_buffer, m_sink;
};

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

/// Takes samples of one candidate in one mode. Each sample is synchronous.
class sampler {
 public:
  sampler(const candidate& c, const timing_options& o, const helper_kernels& h,
          const device::device_info& info, const l2_flusher* flusher)
      : m_c(c), m_o(o), m_h(h), m_info(info), m_flusher(flusher), m_probe(16), m_gated(h) {}
  virtual ~sampler() = default;

  /// Warm-up (module load, first launches) and any graph capture; outside the numbers.
  virtual void prepare() = 0;
  /// One sample in microseconds per launch (chain: added latency per chain).
  virtual double sample(unsigned index) = 0;
  unsigned launches_per_sample() const { return m_launches; }
  /// How many of the candidate's workspaces the samples use in turn.
  virtual unsigned rotated_workspaces() const { return 1; }
  /// How many placements (samplers taking the samples in turn) the candidate needs when
  /// timing_options::placements leaves it to the sampler; asked after prepare().
  virtual unsigned placements_wanted() const { return 1; }

  /// The SM clock now, from the probe kernel, in MHz (0 if the probe read no time).
  double probe_clock_mhz() {
    CUdeviceptr out = m_probe.ptr();
    unsigned slot = 0;
    unsigned long long cycles = m_o.probe_cycles;
    void* args[] = {&out, &slot, &cycles};
    device::launch_config one;
    one.block.x = 32;
    device::launch(m_h.clock_probe(), m_stream.get(), one, args);
    unsigned long long result[2] = {0, 0};
    m_stream.synchronize();
    m_probe.download(result, sizeof result);
    return result[1] ? static_cast<double>(result[0]) * 1e3 / static_cast<double>(result[1]) : 0;
  }

  double chain_total_us = 0, chain_base_us = 0;  // last chain sample's parts
  double event_overhead_us = 0;                  // gated modes: subtracted from each sample

 protected:
  void launch_variant(unsigned workspace_index, bool pdl, CUstream s = nullptr) {
    device::launch_config config = m_c.config;
    config.pdl = pdl;
    families::workspace* w = m_c.workspaces[workspace_index % m_c.workspaces.size()];
    device::launch(m_c.function, s ? s : m_stream.get(), config, w->args());
  }

  /// Launches the variant a few times and returns the mean per-launch time in microseconds.
  double warm_up_and_estimate() {
    for (unsigned i = 0; i < m_o.warm_launches; ++i) launch_variant(0, m_o.pdl);
    m_stream.synchronize();
    const unsigned n = std::max(1u, m_o.estimate_launches);
    return m_gated.interval_us([&] {
      for (unsigned i = 0; i < n; ++i) launch_variant(0, m_o.pdl, m_gated.get());
    }) / n;
  }

  /// One replay between an event pair, behind the gate: a host delayed between recording the
  /// start and launching the graph (compile threads busy on every core) adds no idle time.
  double time_graph_us(const device::graph_exec& g) {
    return m_gated.interval_us([&] { g.launch(m_gated.get()); });
  }

  const candidate& m_c;
  const timing_options& m_o;
  const helper_kernels& m_h;
  const device::device_info& m_info;
  const l2_flusher* m_flusher;  ///< cold and chain modes
  device::stream m_stream;
  device::device_buffer m_probe;
  gated_stream m_gated;
  unsigned m_launches = 1;
};

/// N launches in one graph; per-launch time = replay time / N.
class graph_sampler final : public sampler {
 public:
  using sampler::sampler;
  void prepare() override {
    const double estimate_us = std::max(warm_up_and_estimate(), 0.5);
    const double least = std::max(1u, m_o.graph_min_launches);
    m_launches = static_cast<unsigned>(
        std::clamp(std::ceil(m_o.graph_target_us / estimate_us), least, std::max(least, 1000.0)));
    device::begin_capture(m_stream.get());
    for (unsigned i = 0; i < m_launches; ++i) launch_variant(0, m_o.pdl);
    m_graph = device::graph_exec::end_capture(m_stream.get());
    for (unsigned i = 0; i < m_o.warm_replays; ++i) time_graph_us(m_graph);  // upload and warm
  }
  double sample(unsigned) override { return time_graph_us(m_graph) / m_launches; }

 private:
  device::graph_exec m_graph;
};

/// One launch between an event pair, queued behind a gate kernel that spins until the host
/// has enqueued everything; cold mode also flushes L2 and rotates the inputs first.
class gated_sampler final : public sampler {
 public:
  gated_sampler(const candidate& c, const timing_options& o, const helper_kernels& h,
                const device::device_info& info, const l2_flusher* flusher, bool cold)
      : sampler(c, o, h, info, flusher), m_cold(cold) {}
  unsigned rotated_workspaces() const override {
    return m_cold ? static_cast<unsigned>(m_c.workspaces.size()) : 1;
  }
  void prepare() override {
    warm_up_and_estimate();
    // What the event pair itself costs: the interval of a gated pair with nothing between
    // (median of 31). Measured on the H200 (bench/event_probe.cpp, in git at 4aa6637): an event
    // interval around a kernel exceeds ncu's gpu__time_duration of that kernel by this much, within
    // 0.1 us.
    std::vector<double> overhead;
    for (int i = 0; i < 31; ++i) overhead.push_back(m_gated.interval_us([] {}));
    std::sort(overhead.begin(), overhead.end());
    event_overhead_us = quantile_sorted(overhead, 0.5);
  }

  double sample(unsigned index) override {
    if (m_cold) m_flusher->launch(m_gated.get());
    return m_gated.interval_us([&] {
      launch_variant(m_cold ? index : 0, m_o.pdl, m_gated.get());
    }) - event_overhead_us;
  }

 private:
  bool m_cold;
};

/// A graph of M chains producer -> variant -> consumer (all with PDL), against a graph of M
/// chains producer -> consumer; the difference per chain is the latency the variant adds. Chain
/// i runs on the candidate's workspace i mod (their number), so a figure averages over where
/// the data lies in memory (timer::chain_rotation says how many). The
/// neighbours are the options' chain model: the producer's grid, threads and shared memory decide
/// what of the variant fits beside it, its trigger when the variant may launch; the consumer reads
/// the variant's outputs after its wait.
class chain_sampler final : public sampler {
 public:
  chain_sampler(const candidate& c, const timing_options& o, const helper_kernels& h,
                const device::device_info& info, const l2_flusher* flusher)
      : sampler(c, o, h, info, flusher), m_sink(16) {
    const producer_model& p = o.chain.producer;
    const consumer_model& q = o.chain.consumer;
    m_producer.grid.x = static_cast<unsigned>(info.sm_count) * p.ctas_per_sm;
    m_producer.block.x = p.threads;
    m_producer.shared_bytes = shared_bytes(p.smem_bytes);
    m_producer.pdl = true;
    m_consumer.grid.x = static_cast<unsigned>(info.sm_count) * q.ctas_per_sm;
    m_consumer.block.x = q.threads;
    m_consumer.shared_bytes = shared_bytes(q.smem_bytes);
    m_consumer.pdl = true;
    check_fits(h.producer(), m_producer, p.ctas_per_sm, "producer");
    check_fits(h.consumer(), m_consumer, q.ctas_per_sm, "consumer");
    // What the consumer reads after the variant ran on workspace w: (pointer, bytes) pairs, every
    // workspace's list in one buffer (one allocation per sampler, not one per workspace: a sweep
    // makes tens of thousands of samplers).
    std::vector<unsigned long long> jobs;
    for (std::size_t w = 0; w < c.workspaces.size(); ++w) {
      job_list& list = m_job_lists.emplace_back(job_list{jobs.size(), 0});
      if (q.reads != consumer_reads::none) {
        for (const auto& [ptr, bytes] :
             c.workspaces[w]->written(q.reads == consumer_reads::written)) {
          jobs.push_back(ptr);
          jobs.push_back(bytes);
          ++list.count;
        }
      }
    }
    m_jobs =
        device::device_buffer(std::max<std::size_t>(16, jobs.size() * sizeof(unsigned long long)));
    if (!jobs.empty()) m_jobs.upload(jobs.data(), jobs.size() * sizeof(unsigned long long));
  }

  unsigned rotated_workspaces() const override { return m_rotation; }

  /// A graph's kernel nodes and the sampler's buffers lie somewhere in memory, and after the
  /// flush each replay reads them cold: on the H200, copies of one T=1 mla variant in one
  /// process (each with its own sampler) differed by 2-3% (sd), the same copy alike in every
  /// process, against 0.4% of sampling noise; 8 samplers per copy brought the copies to
  /// 0.5% (results/h200/placements-2026-12-01). Taking the spread as some 25 ns whatever the
  /// kernel, a variant gets enough placements for it to fall under 0.5% of its added latency
  /// t (the least n with 25 ns / (t sqrt(n)) <= 0.5%, at most 8): 8 below 1.8 us, 1 from 5 us.
  unsigned placements_wanted() const override {
    const double ratio = 5.0 / std::max(m_added_us, 0.1);
    return static_cast<unsigned>(std::clamp(std::ceil(ratio * ratio), 1.0, 8.0));
  }

  void prepare() override {
    const double estimate_us = std::max(warm_up_and_estimate(), 0.5);
    const double least = std::max(1u, m_o.graph_min_launches);
    const double per_chain = estimate_us + m_o.chain.producer.duration_us;
    m_launches = static_cast<unsigned>(std::clamp(std::ceil(m_o.graph_target_us / per_chain), least,
                                                  std::max(least, double(m_o.chain_max))));
    // After the flush a workspace's first chain in a replay reads cold data: at most a quarter of
    // the chains do, so a short screening graph and a full one weigh cold reads alike.
    m_rotation = std::clamp(m_launches / 4, 1u, static_cast<unsigned>(m_c.workspaces.size()));
    m_base = capture(false);
    m_chain = capture(true);
    for (unsigned i = 0; i < std::max(1u, m_o.warm_replays); ++i) {
      const double base_us = time_graph_us(m_base);
      m_added_us = (time_graph_us(m_chain) - base_us) / m_launches;  // the last warm pair's
    }
  }

  double sample(unsigned) override {
    chain_base_us = time_flushed_us(m_base) / m_launches;
    chain_total_us = time_flushed_us(m_chain) / m_launches;
    return chain_total_us - chain_base_us;
  }

 private:
  /// One replay between an event pair, with L2 flushed just before it (behind the gate, outside
  /// the interval). Without the flush a decode-size chain inherits a state from the replays
  /// before it: on the H200 one bf16 variant's added latency at T=1 sat at 0.88, 1.01 or 1.06 us
  /// for dozens of samples at a time (the base chain without it stayed within 0.2%), which level
  /// depending on what ran before; an untimed replay of the same graph just before did not
  /// change that. After a flush the level is drawn afresh for each replay, so a sample varies
  /// (about 4% at T=1) but no longer depends on the samples before it: the median averages over
  /// the levels and its standard error shows them (results/h200/regimes-2026-12-01). Serving is
  /// closer to this than to a warm L2, too: the weights streamed between two decode steps evict
  /// what a step left there.
  double time_flushed_us(const device::graph_exec& g) {
    return m_gated.interval_us([&] { m_flusher->launch(m_gated.get()); },
                               [&] { g.launch(m_gated.get()); });
  }

  unsigned shared_bytes(long long model) const {
    return static_cast<unsigned>(model < 0 ? m_info.shared_per_block_optin_bytes : model);
  }

  /// The model's CTAs per SM must fit on an SM at once, or it would run in waves and stand for
  /// another kernel than the one described.
  void check_fits(CUfunction fn, const device::launch_config& c, unsigned per_sm,
                  const char* which) const {
    device::opt_in(fn, c);
    int fitting = 0;
    KK3_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &fitting, fn,
           static_cast<int>(c.block.volume()), c.shared_bytes);
    if (fitting < static_cast<int>(per_sm)) {
      throw error(error_kind::usage, std::string("chain model: the ") + which + "'s " +
                                         std::to_string(per_sm) + " CTA(s) per SM of " +
                                         std::to_string(c.block.volume()) + " threads and " +
                                         std::to_string(c.shared_bytes) +
                                         " bytes of shared memory do not fit on one SM of " +
                                         m_info.name + " (" + std::to_string(fitting) + " fit)");
    }
  }

  device::graph_exec capture(bool with_variant) {
    const producer_model& p = m_o.chain.producer;
    // The producer counts SM cycles: microseconds at the GPU's maximum SM clock.
    const double cycles_per_us = std::max(1, m_info.max_sm_clock_mhz);
    unsigned long long producer_cycles =
        static_cast<unsigned long long>(p.duration_us * cycles_per_us);
    unsigned long long trigger_cycles =
        p.trigger < 0 ? ~0ull
                      : static_cast<unsigned long long>(p.trigger * p.duration_us * cycles_per_us);
    CUdeviceptr jobs = 0, sink = m_sink.ptr();
    int count = 0;
    void* producer_args[] = {&producer_cycles, &trigger_cycles};
    void* consumer_args[] = {&jobs, &count, &sink};
    device::begin_capture(m_stream.get());
    for (unsigned i = 0; i < m_launches; ++i) {  // chain i runs on workspace i mod rotation
      const unsigned w = i % m_rotation;
      device::launch(m_h.producer(), m_stream.get(), m_producer, producer_args);
      if (with_variant) launch_variant(w, m_o.pdl);
      jobs = m_jobs.ptr() + m_job_lists[w].offset * sizeof(unsigned long long);
      count = m_job_lists[w].count;
      device::launch(m_h.consumer(), m_stream.get(), m_consumer, consumer_args);
    }
    return device::graph_exec::end_capture(m_stream.get());
  }

  device::launch_config m_producer, m_consumer;
  struct job_list {
    std::size_t offset;  // where the workspace's pairs start in m_jobs, in words
    int count;           // how many pairs
  };
  device::device_buffer m_jobs;       // (pointer, bytes) pairs the consumer reads, all workspaces'
  std::vector<job_list> m_job_lists;  // per workspace
  device::device_buffer m_sink;
  unsigned m_rotation = 1;
  double m_added_us = 0;  ///< the added latency per chain in the warm replays (not flushed)
  device::graph_exec m_base, m_chain;
};

std::unique_ptr<sampler> make_sampler(const candidate& c, const timing_options& o,
                                      const helper_kernels& h, const device::device_info& info,
                                      const l2_flusher* flusher) {
  switch (o.mode) {
    case timing_mode::graph:
      return std::make_unique<graph_sampler>(c, o, h, info, flusher);
    case timing_mode::isolated:
      return std::make_unique<gated_sampler>(c, o, h, info, flusher, false);
    case timing_mode::cold:
      return std::make_unique<gated_sampler>(c, o, h, info, flusher, true);
    case timing_mode::chain:
      return std::make_unique<chain_sampler>(c, o, h, info, flusher);
  }
  throw error(error_kind::usage, "unknown timing mode");
}

std::vector<double> kept_samples(const measurement& m) {
  std::vector<double> kept;
  for (std::size_t i = 0; i < m.samples_us.size(); ++i) {
    if (!m.throttled[i]) kept.push_back(m.samples_us[i]);
  }
  return kept;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

/// One candidate while it is measured, into `m`: its placements' samplers, each made, warmed up
/// and captured (outside the numbers) when its first sample is due, taking the samples in turn;
/// its elapsed time, throttle threshold and the chain medians' inputs.
class candidate_run {
 public:
  /// Makes the first placement and fills what the measurement knows before its first sample.
  candidate_run(const candidate& c, const timing_options& o, const helper_kernels& h,
                const device::device_info& info, const l2_flusher* flusher, measurement& m)
      : m_c(c), m_o(o), m_h(h), m_info(info), m_flusher(flusher), m_m(m) {
    if (c.workspaces.empty())
      throw error(error_kind::usage, c.label + ": no workspace to launch on");
    m_started = clock_type::now();
    // Later placements are made inside a round's ranges.
    nvtx::scoped_range variant_range(c.label, c.tokens);
    nvtx::scoped_range measure_range("measure", c.tokens);
    const sampler& first = placed(0);
    m_placements = o.placements ? o.placements : first.placements_wanted();
    m.label = c.label;
    m.mode = o.mode;
    m.pdl = o.pdl;
    m.launches_per_sample = first.launches_per_sample();
    m.event_overhead_us = first.event_overhead_us;
    m.rotated_workspaces = first.rotated_workspaces();
    m.bytes_moved = c.bytes_moved;
    m.fits_in_l2 = c.bytes_moved <= static_cast<double>(info.l2_bytes);
  }

  bool done() const { return m_m.stopped != stop_reason::running; }

  /// The sample of round `round`, its clock and throttle flag, and whether to stop.
  void take_sample(unsigned round) {
    nvtx::scoped_range variant_range(m_c.label, m_c.tokens);
    nvtx::scoped_range measure_range("measure", m_c.tokens);
    sampler& s = placed(round);
    const auto t0 = clock_type::now();
    {
      watch::scope gpu_work(m_c.label);
      m_m.clock_mhz.push_back(s.probe_clock_mhz());
      m_m.samples_us.push_back(s.sample(round / m_placements));
    }
    m_elapsed += seconds_since(t0);
    if (m_o.mode == timing_mode::chain) {
      m_base_us.push_back(s.chain_base_us);
      m_total_us.push_back(s.chain_total_us);
    }
    // Re-flag throttled samples against the median clock so far (every sample early on, then
    // every 16th: the flags only move when the median does).
    if (m_m.samples_us.size() < 64 || m_m.samples_us.size() % 16 == 0) {
      m_m.throttled = flag_throttled(m_m.clock_mhz, m_o.throttle_ratio);
      m_clock_threshold = m_o.throttle_ratio * median_of(m_m.clock_mhz);
    } else {
      m_m.throttled.push_back(m_m.clock_mhz.back() > 0 && m_m.clock_mhz.back() < m_clock_threshold);
    }
    m_m.stopped = check_stop(m_o.stop, kept_samples(m_m), m_elapsed);
  }

  /// The statistics over the kept samples, and the chain medians.
  void finish() {
    m_m.throttled = flag_throttled(m_m.clock_mhz, m_o.throttle_ratio);
    m_m.stats = summarize(kept_samples(m_m));
    m_m.wall_s = seconds_since(m_started);
    m_m.placements = static_cast<unsigned>(m_samplers.size());
    if (m_o.mode == timing_mode::chain) {
      m_m.chain_base_us = median_of(m_base_us);
      m_m.chain_total_us = median_of(m_total_us);
    }
  }

 private:
  /// The sampler for sample `index`.
  sampler& placed(unsigned index) {
    const std::size_t p = index % m_placements;
    if (p < m_samplers.size()) return *m_samplers[p];
    m_samplers.push_back(make_sampler(m_c, m_o, m_h, m_info, m_flusher));
    watch::scope gpu_work(m_c.label);  // a supervisor names this variant if it hangs or faults
    m_samplers.back()->prepare();
    return *m_samplers.back();
  }

  const candidate& m_c;
  const timing_options& m_o;
  const helper_kernels& m_h;
  const device::device_info& m_info;
  const l2_flusher* m_flusher;
  measurement& m_m;
  std::vector<std::unique_ptr<sampler>> m_samplers;
  unsigned m_placements = 1;
  clock_type::time_point m_started;
  double m_elapsed = 0, m_clock_threshold = 0;
  std::vector<double> m_base_us, m_total_us;
};

}  // namespace

timing_options options_for(const objective& o) {
  timing_options out;
  out.mode = o.mode;
  out.pdl = o.pdl;
  out.chain = o.chain;
  return out;
}

candidate make_candidate(const families::family& f, const space::variant& v, const space::mode& m,
                         const families::shape& s, CUfunction function,
                         std::vector<families::workspace*> workspaces) {
  candidate c;
  c.label = v.id;
  c.tokens = s.tokens;
  c.function = function;
  c.config = f.geometry(v, m, s);
  c.workspaces = std::move(workspaces);
  c.bytes_moved = f.bytes_moved(s, m);
  return c;
}

timer::timer(const device::device_info& info, const helper_kernels& helpers)
    : m_info(info), m_helpers(helpers) {}
timer::~timer() = default;

const l2_flusher& timer::flusher() const {
  if (!m_flusher) m_flusher = std::make_unique<l2_flusher>(m_helpers, m_info);
  return *m_flusher;
}

unsigned timer::cold_rotation(double working_set_bytes) const {
  if (working_set_bytes <= 0) return 1;
  return static_cast<unsigned>(std::clamp(
      std::ceil(1.5 * static_cast<double>(m_info.l2_bytes) / working_set_bytes), 1.0, 8.0));
}

unsigned timer::chain_rotation(double working_set_bytes) const {
  if (working_set_bytes <= 0) return 1;
  return static_cast<unsigned>(std::clamp(
      std::floor(0.5 * static_cast<double>(m_info.l2_bytes) / working_set_bytes), 1.0, 8.0));
}

std::vector<measurement> timer::measure(const std::vector<candidate>& candidates,
                                        const timing_options& options) const {
  const l2_flusher* flusher =
      options.mode == timing_mode::cold || options.mode == timing_mode::chain ? &this->flusher()
                                                                              : nullptr;
  std::vector<measurement> out(candidates.size());
  std::vector<candidate_run> runs;
  runs.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i)
    runs.emplace_back(candidates[i], options, m_helpers, m_info, flusher, out[i]);
  // Interleave: one sample of each unfinished candidate per round.
  for (unsigned round = 0;
       std::any_of(runs.begin(), runs.end(), [](const candidate_run& r) { return !r.done(); });
       ++round) {
    for (candidate_run& r : runs) {
      if (!r.done()) r.take_sample(round);
    }
  }
  for (candidate_run& r : runs) r.finish();
  return out;
}

results::time_entry time_entry_of(const measurement& m) {
  // In results::time_entry's field order.
  return {m.label,
          m.mode,
          m.pdl,
          m.launches_per_sample,
          m.rotated_workspaces,
          m.placements,
          m.event_overhead_us,
          to_string(m.stopped),
          m.wall_s,
          m.stats,
          m.bytes_moved,
          m.fits_in_l2,
          m.samples_us,
          m.clock_mhz,
          m.throttled,
          m.chain_total_us,
          m.chain_base_us};
}

}  // namespace kk3::timing
