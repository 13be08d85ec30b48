// Writes result files through kk3tune's own writers without a GPU (`time` needs one, and a sweep
// without one writes only the untimed layout): kind "time" in every timing mode and kind
// "sweep" with a record of every status and a dispatch table, from made-up measurements. The
// schema test (validate_results.py) validates what this writes.
//   kk3_write_result_samples OUT_DIR
#include <cmath>
#include <iostream>
#include <random>

#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/result_set.hpp"
#include "results/schema.hpp"
#include "results/sweep_file.hpp"
#include "results/time_file.hpp"
#include "sweep/sweep.hpp"
#include "timing/statistics.hpp"
#include "timing/timer.hpp"

namespace {

using namespace kk3;

results::run_context h200_context() {
  results::run_context c;
  c.gpu.name = "NVIDIA H200";
  c.gpu.pci_bus_id = "0000:00:06.0";
  c.gpu.cc_major = 9;
  c.gpu.cc_minor = 0;
  c.gpu.arch = "sm_90a";
  c.gpu.sm_count = 132;
  c.gpu.l2_bytes = 62914560;
  c.gpu.memory_bytes = 150109880320LL;
  c.gpu.max_sm_clock_mhz = 1980;
  c.gpu.max_memory_clock_mhz = 3201;
  c.gpu.driver_version = 13000;
  c.gpu.clocks = device::gpu_clocks{1980, 3201, 0};
  c.nvrtc_version = "13.0";
  c.tool_version = "0.1.0";
  c.git_revision = "0123456789ab";
  c.argv = {"kk3tune", "time"};
  c.utc_time = "2026-11-29T12:00:00Z";
  return c;
}

std::vector<double> draw(std::mt19937& rng, double median_us, std::size_t n) {
  std::normal_distribution<double> noise(0, 0.005);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(median_us * (1 + noise(rng)));
  return out;
}

timing::measurement measurement(std::mt19937& rng, const std::string& label,
                                results::timing_mode mode, double median_us) {
  timing::measurement m;
  m.label = label;
  m.mode = mode;
  m.samples_us = draw(rng, median_us, 24);
  if (mode == results::timing_mode::chain)
    m.samples_us[3] = -0.05;  // chain differences dip below 0
  m.clock_mhz.assign(m.samples_us.size(), 1980.0);
  m.throttled.assign(m.samples_us.size(), false);
  m.clock_mhz[5] = 1200;
  m.throttled[5] = true;
  m.stats = timing::summarize(m.samples_us);
  m.stopped = timing::stop_reason::converged;
  m.launches_per_sample = mode == results::timing_mode::graph ? 20 : 1;
  m.rotated_workspaces = mode == results::timing_mode::cold ? 4 : 1;
  m.event_overhead_us = mode == results::timing_mode::isolated ? 1.8 : 0;
  m.bytes_moved = 2523136;
  m.fits_in_l2 = true;
  m.wall_s = 0.02;
  if (mode == results::timing_mode::chain) {
    m.chain_total_us = 8.4;
    m.chain_base_us = 8.4 - median_us;
  }
  return m;
}

std::string time_json(results::timing_mode mode) {
  std::mt19937 rng(7);
  results::time_subject s;
  s.family = "mla_decode_epilogue";
  s.mode = "bf16";
  s.tokens = 64;
  s.shape = {{"heads", 16}};
  s.seed = 4126352145ULL;
  s.copy_ceiling_tb_s = 4.17;
  s.reference = "split1";
  return results::time_text(h200_context(), s,
                            {timing::time_entry_of(measurement(rng, "split1", mode, 1.98)),
                             timing::time_entry_of(measurement(rng, "split3", mode, 1.74))});
}

std::string sweep_json() {
  std::mt19937 rng(11);
  results::result_set r;
  r.kind = "sweep";
  r.schema_version = results::k_schema_version;
  r.context = h200_context();
  r.context.argv = {"kk3tune", "sweep"};
  results::plan_block& p = r.plan.emplace();
  p.timed = true;
  p.archs = {"sm_90a"};
  p.config = "plan.json";
  p.tokens = {1, 64};
  const select::selection_rule rule;  // what a plan without one gets
  p.min_gain = rule.min_gain;
  p.noise_sigmas = rule.noise_sigmas;
  p.noise_floor = rule.noise_floor;
  p.copy_ceiling_tb_s = 4.17;
  p.compiles = 5;
  p.compile_failures = 1;
  p.wall_s = 3.2;
  p.digest = "0123456789abcdef0123456789abcdef";
  p.items = {"mla_decode_epilogue/bf16/H16/NB0", "mla_decode_epilogue/bf16/H32/NB0"};
  p.shard = results::shard_coverage{1, 2, {0}};  // a shard's file: it names the items it holds
  sweep::family_summary f;
  f.family = "mla_decode_epilogue";
  f.entry = "mla_decode_epilogue<{SPLIT}>";
  f.source = "mla_decode_epilogue.cuh";
  f.shape_keys = {"heads"};
  f.knobs = {"SPLIT"};
  f.reference = "split1";
  f.reference_knobs = {{"SPLIT", 1}};
  f.modes = {{"bf16", {{"MODE_FP8", "0"}, {"MODE_ROPE", "0"}}}};
  r.families.push_back(f);

  const std::vector<std::string> statuses = {
      "ok",         "dropped",     "compile_failed", "launch_failed", "mismatch",
      "pdl_hazard", "unsupported", "unlaunchable",   "unverified"};
  long long split = 1;
  for (const std::string& status : statuses) {
    sweep::record rec;
    rec.family = "mla_decode_epilogue";
    rec.mode = "bf16";
    rec.tokens = status == "unverified" ? 0 : 64;
    rec.shape = {{"heads", 16}};
    rec.variant = "split" + std::to_string(split);
    rec.knobs = {{"SPLIT", split}};
    ++split;
    rec.reference = status == "ok";
    rec.status = results::status_from_text(status);
    const bool timed =
        status != "compile_failed" && status != "unlaunchable" && status != "unverified";
    if (timed) {
      rec.rounds = status == "dropped" ? 1 : 3;
      rec.samples_us = draw(rng, 1.9, status == "dropped" ? 2 : 20);
      rec.stats = timing::summarize(rec.samples_us);
      rec.bytes_moved = 2523136;
    } else {
      rec.reason = status == "compile_failed" ? "sm_90a: error: too many resources"
                   : status == "unlaunchable"
                       ? "unlaunchable at T64-H16: a cluster of 16 CTAs with 128 threads, 40 "
                         "registers per thread and 200 KiB of shared memory each does not fit "
                         "on the device"
                       : "";
    }
    if (timed && status != "dropped") {
      sweep::verification v;
      v.status = results::status_from_text(status);
      v.seed = 3108332325ULL;
      v.checks = 8;
      v.shapes = {"T1-H16", "T65-H16"};
      if (status == "mismatch") v.first_mismatch = "mqa_q[3] expected 0x3f80 got 0x0000 at T1-H16";
      rec.verified = v;
    }
    results::set_throughput(rec, p.copy_ceiling_tb_s);
    r.records.push_back(rec);
  }
  sweep::dispatch_entry d;
  d.family = "mla_decode_epilogue";
  d.mode = "bf16";
  d.shape = {{"heads", 16}};
  d.ranges.push_back({1, 1, "split1", std::string("split2"), 0.04, false, {1}});
  d.ranges.push_back({64, 64, "split1", std::nullopt, 0, true, {64}});
  for (select::range& range : d.ranges) range.knobs = {{"SPLIT", 1}};  // the winner's
  r.dispatch.push_back(d);
  return results::sweep_file_text(r);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kk3_write_result_samples OUT_DIR\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  for (auto mode : {results::timing_mode::graph, results::timing_mode::isolated,
                    results::timing_mode::cold, results::timing_mode::chain}) {
    const auto file = out / (std::string("time-") + results::to_string(mode) + ".json");
    write_file_atomic(file, time_json(mode));
    std::cout << file.string() << "\n";
  }
  write_file_atomic(out / "sweep-timed.json", sweep_json());
  std::cout << (out / "sweep-timed.json").string() << "\n";
  return 0;
}
