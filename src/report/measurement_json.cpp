#include "report/measurement_json.hpp"

#include "core/json_parse.hpp"
#include "results/codec.hpp"
#include "results/schema.hpp"

#include <nlohmann/json.hpp>

namespace kk3::report {

json context_json(const run_context& c) {
  json gpu = {{"name", c.gpu.name},
              {"pci_bus_id", c.gpu.pci_bus_id},
              {"compute_capability", std::to_string(c.gpu.cc_major) + "." + std::to_string(c.gpu.cc_minor)},
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
    out["figures"] = {{"copy_ceiling_tb_s", c.copy_ceiling_tb_s}, {"empty_kernel_us", c.empty_kernel_us}};
  }
  return out;
}

std::string measurement_json(const run_context& context, const measured_subject& s,
                             const std::vector<timing::measurement>& results) {
  json entries = json::array();
  for (const timing::measurement& m : results) {
    const auto& st = m.stats;
    const double tb_s = st.median > 0 ? m.bytes_moved / (st.median * 1e-6) / 1e12 : 0;
    json e = {
        {"variant", m.label},
        {"reference", m.label == s.reference},
        {"timing",
         {{"mode", results::to_string(m.mode)},
          {"pdl", m.pdl},
          {"objective", results::to_json(s.objective)},
          {"launches_per_sample", m.launches_per_sample},
          {"rotated_workspaces", m.rotated_workspaces},
          {"placements", m.placements},
          {"event_overhead_us", m.event_overhead_us},
          {"stopped", timing::to_string(m.stopped)},
          {"wall_s", m.wall_s}}},
        {"statistics", results::statistics_json(st)},
        {"bytes_moved", m.bytes_moved},
        {"fits_in_l2", m.fits_in_l2},
        {"achieved_tb_s", tb_s},
        {"fraction_of_ceiling", s.copy_ceiling_tb_s > 0 ? tb_s / s.copy_ceiling_tb_s : 0},
        {"samples_us", m.samples_us},
        {"clock_mhz", m.clock_mhz},
        {"throttled", m.throttled}};
    if (m.mode == results::timing_mode::chain) e["chain"] = {{"total_us", m.chain_total_us}, {"base_us", m.chain_base_us}};
    entries.push_back(std::move(e));
  }
  json doc = {{"schema_version", results::k_schema_version},
              {"kind", "time"},
              {"context", context_json(context)},
              {"subject",
               {{"family", s.family}, {"mode", s.mode}, {"tokens", s.tokens}, {"shape", results::shape_json(s.shape)},
                {"seed", s.seed}}},
              {"results", entries}};
  return doc.dump(2) + "\n";
}

}  // namespace kk3::report
