#include "results/codec.hpp"

#include <cmath>

#include "core/error.hpp"
#include "results/arch_resources.hpp"
#include "results/entries.hpp"
#include "results/json_fields.hpp"

namespace kk3::results {
namespace {

/// x * per_unit rounded, divided back: the nearest double to the short decimal, so it prints short.
double rounded(double x, double per_unit) {
  return std::round(x * per_unit) / per_unit;
}

json stats_json(const sample_stats& st, record_precision p) {
  json j = statistics_json(st);
  if (p == record_precision::full) return j;
  for (auto& [key, value] : j.items()) {
    if (value.is_number_float()) {
      value = rounded(value.get<double>(), key == "rel_stderr_median" ? 1e6 : 1e4);
    }
  }
  return j;
}

constexpr std::pair<status, const char*> k_status_text[] = {
    {status::ok, "ok"},
    {status::dropped, "dropped"},
    {status::compile_failed, "compile_failed"},
    {status::launch_failed, "launch_failed"},
    {status::timeout, "timeout"},
    {status::mismatch, "mismatch"},
    {status::pdl_hazard, "pdl_hazard"},
    {status::unsupported, "unsupported"},
    {status::unlaunchable, "unlaunchable"},
    {status::unverified, "unverified"},
};

}  // namespace

const char* to_text(status s) {
  for (const auto& [value, text] : k_status_text) {
    if (value == s) return text;
  }
  return "unknown";
}

status status_from_text(const std::string& text) {
  for (const auto& [value, name] : k_status_text) {
    if (text == name) return value;
  }
  throw error(error_kind::input, "unknown status \"" + text + "\"");
}

json shape_json(const dims& shape) {
  json out = json::object();
  for (const auto& [name, value] : shape) out[name] = value;
  return out;
}

json statistics_json(const sample_stats& st) {
  return {{"samples", st.samples},  {"min_us", st.min},
          {"median_us", st.median}, {"mean_us", st.mean},
          {"p10_us", st.p10},       {"p90_us", st.p90},
          {"max_us", st.max},       {"stdev_us", st.stdev},
          {"iqr_us", st.iqr},       {"rel_stderr_median", st.rel_stderr_median}};
}

json context_json(const run_context& c) {
  json gpu = {{"name", c.gpu.name},
              {"pci_bus_id", c.gpu.pci_bus_id},
              {"compute_capability", device::compute_capability_text(c.gpu)},
              {"arch", c.gpu.arch},
              {"sm_count", c.gpu.sm_count},
              {"l2_bytes", c.gpu.l2_bytes},
              {"memory_bytes", c.gpu.memory_bytes},
              {"max_sm_clock_mhz", c.gpu.max_sm_clock_mhz},
              {"max_memory_clock_mhz", c.gpu.max_memory_clock_mhz},
              {"driver_version", device::version_string(c.gpu.driver_version)}};
  if (c.gpu.clocks) {
    gpu["sm_clock_mhz"] = c.gpu.clocks->sm_mhz;
    gpu["memory_clock_mhz"] = c.gpu.clocks->memory_mhz;
  }
  json out = {{"gpu", gpu},
              {"nvrtc_version", c.nvrtc_version},
              {"tool_version", c.tool_version},
              {"git_revision", c.git_revision},
              {"argv", c.argv},
              {"utc_time", c.utc_time}};
  if (c.copy_ceiling_tb_s > 0 || c.empty_kernel_us > 0) {
    out["figures"] = {{"copy_ceiling_tb_s", c.copy_ceiling_tb_s},
                      {"empty_kernel_us", c.empty_kernel_us}};
  }
  return out;
}

json knobs_json(const knob_values& knobs) {
  json k = json::object();
  for (const auto& [name, value] : knobs) k[name] = value;
  return k;
}

double fraction_of_ceiling(double achieved_tb_s, double ceiling_tb_s) {
  return ceiling_tb_s > 0 ? achieved_tb_s / ceiling_tb_s : 0;
}

void set_throughput(record& r, double ceiling_tb_s) {
  r.achieved_tb_s =
      r.stats && r.stats->median > 0 ? r.bytes_moved / (r.stats->median * 1e-6) / 1e12 : 0;
  r.fraction_of_ceiling = fraction_of_ceiling(r.achieved_tb_s, ceiling_tb_s);
}

json verification_json(const verification& v) {
  return {{"status", to_text(v.status)},
          {"seed", v.seed},
          {"checks", v.checks},
          {"shapes", v.shapes},
          {"first_mismatch", v.first_mismatch.empty() ? json(nullptr) : json(v.first_mismatch)}};
}

// The decoders are the reader's (results/entries.hpp), strict: one record decoder for the
// journal and the result file.
namespace {
const std::filesystem::path& journal_record_label() {
  static const std::filesystem::path label("a journal record");
  return label;
}
}  // namespace

verification verification_from_json(const json& j, const std::string& reason) {
  const json_fields f(journal_record_label(), /*strict=*/true);
  return read_verification(f, j, "/verification", reason);
}

json record_json(const record& r, record_precision p) {
  json e = {{"family", r.family},       {"mode", r.mode},
            {"tokens", r.tokens},       {"shape", shape_json(r.shape)},
            {"variant", r.variant},     {"knobs", knobs_json(r.knobs)},
            {"reference", r.reference}, {"status", to_text(r.status)},
            {"reason", r.reason},       {"rounds", r.rounds}};
  e["verification"] = r.verified ? verification_json(*r.verified) : json(nullptr);
  e["statistics"] = r.stats ? stats_json(*r.stats, p) : json(nullptr);
  json samples = json::array();
  for (double x : r.samples_us) {
    samples.push_back(p == record_precision::full ? x : rounded(x, 1e4));
  }
  e["samples_us"] = samples;
  e["bytes_moved"] = r.bytes_moved;
  for (auto [key, value] : {std::pair{"achieved_tb_s", r.achieved_tb_s},
                            {"fraction_of_ceiling", r.fraction_of_ceiling}}) {
    e[key] = p == record_precision::full ? value : rounded(value, 1e6);
  }
  if (!r.resources.empty()) e["resources"] = resources_json(r.resources);  // untimed sweeps
  if (!r.grids.empty()) e["grid_ctas"] = grids_json(r.grids);
  return e;
}

record record_from_json(const json& j) {
  const json_fields f(journal_record_label(), /*strict=*/true);
  record r = read_record(f, j, "");
  r.at.clear();
  return r;
}

}  // namespace kk3::results
