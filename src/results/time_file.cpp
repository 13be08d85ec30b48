#include "results/time_file.hpp"

#include "results/codec.hpp"
#include "results/schema.hpp"

namespace kk3::results {

std::string time_text(const run_context& context, const time_subject& s,
                      const std::vector<time_entry>& entries) {
  json list = json::array();
  for (const time_entry& m : entries) {
    const auto& st = m.stats;
    const double tb_s = st.median > 0 ? m.bytes_moved / (st.median * 1e-6) / 1e12 : 0;
    json e = {{"variant", m.variant},
              {"reference", m.variant == s.reference},
              {"timing",
               {{"mode", to_string(m.mode)},
                {"pdl", m.pdl},
                {"objective", to_json(s.objective)},
                {"launches_per_sample", m.launches_per_sample},
                {"rotated_workspaces", m.rotated_workspaces},
                {"placements", m.placements},
                {"event_overhead_us", m.event_overhead_us},
                {"stopped", m.stopped},
                {"wall_s", m.wall_s}}},
              {"statistics", statistics_json(st)},
              {"bytes_moved", m.bytes_moved},
              {"fits_in_l2", m.fits_in_l2},
              {"achieved_tb_s", tb_s},
              {"fraction_of_ceiling", s.copy_ceiling_tb_s > 0 ? tb_s / s.copy_ceiling_tb_s : 0},
              {"samples_us", m.samples_us},
              {"clock_mhz", m.clock_mhz},
              {"throttled", m.throttled}};
    if (m.mode == timing_mode::chain)
      e["chain"] = {{"total_us", m.chain_total_us}, {"base_us", m.chain_base_us}};
    list.push_back(std::move(e));
  }
  const json doc = {{"schema_version", k_schema_version},
                    {"kind", "time"},
                    {"context", context_json(context)},
                    {"subject",
                     {{"family", s.family},
                      {"mode", s.mode},
                      {"tokens", s.tokens},
                      {"shape", shape_json(s.shape)},
                      {"seed", s.seed}}},
                    {"results", list}};
  return doc.dump(2) + "\n";
}

}  // namespace kk3::results
