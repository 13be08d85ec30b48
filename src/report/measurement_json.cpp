#include "report/measurement_json.hpp"

#include "core/json_parse.hpp"
#include "results/codec.hpp"
#include "results/schema.hpp"

#include <nlohmann/json.hpp>

namespace kk3::report {

std::string measurement_json(const results::run_context& context, const measured_subject& s,
                             const std::vector<timing::measurement>& results) {
  json entries = json::array();
  for (const timing::measurement& m : results) {
    const auto& st = m.stats;
    const double tb_s = st.median > 0 ? m.bytes_moved / (st.median * 1e-6) / 1e12 : 0;
    json e = {{"variant", m.label},
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
    if (m.mode == results::timing_mode::chain)
      e["chain"] = {{"total_us", m.chain_total_us}, {"base_us", m.chain_base_us}};
    entries.push_back(std::move(e));
  }
  json doc = {{"schema_version", results::k_schema_version},
              {"kind", "time"},
              {"context", results::context_json(context)},
              {"subject",
               {{"family", s.family},
                {"mode", s.mode},
                {"tokens", s.tokens},
                {"shape", results::shape_json(s.shape)},
                {"seed", s.seed}}},
              {"results", entries}};
  return doc.dump(2) + "\n";
}

}  // namespace kk3::report
