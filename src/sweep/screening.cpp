#include "sweep/screening.hpp"

#include <algorithm>
#include <cmath>

#include "select/selection.hpp"

namespace kk3::sweep {

screened screen_and_measure(const timing::timer& timer, const std::vector<timing::candidate>& all,
                            const std::set<std::string>& protect, const sweep_config& cfg,
                            const results::objective& objective) {
  screened out;
  std::vector<timing::candidate> alive = all;
  const timing::timing_options base = timing::options_for(objective);
  timing::timing_options quick = base;
  quick.stop.min_samples = cfg.screen.samples;
  quick.stop.max_samples = cfg.screen.samples;
  quick.stop.min_time_s = 0;
  quick.stop.max_time_s = 1;
  quick.stop.noise_target = 1;
  // A screening round only has to tell clearly slower variants apart: short graphs (a 600 us
  // kernel is replayed alone), one warm replay, two estimate launches.
  quick.graph_target_us = 100;
  quick.graph_min_launches = 1;
  quick.warm_launches = 1;
  quick.estimate_launches = 2;
  quick.warm_replays = 1;
  quick.placements = 1;  // a placement's luck (about 2% at T=1) is within a screening cut's margin
  bool first = true;
  while (alive.size() > cfg.screen.final_max) {
    std::vector<timing::measurement> ms = timer.measure(alive, quick);
    std::vector<std::size_t> order(ms.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return ms[a].stats.median != ms[b].stats.median ? ms[a].stats.median < ms[b].stats.median
                                                      : ms[a].label < ms[b].label;
    });
    for (std::size_t i : order) {
      auto& slot = out.last[ms[i].label];
      slot = {ms[i], slot.second + 1};
      if (first) out.first_round_order.push_back(ms[i].label);
    }
    first = false;
    const std::size_t keep =
        std::max(cfg.screen.keep_min,
                 static_cast<std::size_t>(std::ceil(cfg.screen.keep_fraction * alive.size())));
    // Noise-aware cut: a candidate beyond the cut stays if it is not clearly slower than the
    // last one kept (it could be as fast, given the noise of a short round).
    const timing::measurement& cut = ms[order[std::min(keep, order.size()) - 1]];
    std::vector<timing::candidate> next;
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
      const timing::measurement& m = ms[order[rank]];
      const select::timed_variant a{m.label, m.stats.median, m.stats.rel_stderr_median, true};
      const select::timed_variant b{cut.label, cut.stats.median, cut.stats.rel_stderr_median, true};
      const bool near_cut = !select::clearly_faster(b, a, select::selection_rule{0.0, 2.0});
      if (rank < keep || protect.count(m.label) || near_cut) next.push_back(alive[order[rank]]);
    }
    if (next.size() >= alive.size()) break;  // nothing clearly slower: measure them all finally
    alive = std::move(next);
  }
  timing::timing_options full = base;
  full.stop.noise_target = cfg.timing.noise_percent / 100;
  full.stop.min_samples = cfg.timing.min_samples;
  full.stop.max_time_s = cfg.timing.max_time_s;
  out.finals = timer.measure(alive, full);
  for (const auto& m : out.finals) {
    auto& slot = out.last[m.label];
    slot = {m, slot.second + 1};
    if (first) out.first_round_order.push_back(m.label);
  }
  if (first) {
    std::sort(out.first_round_order.begin(), out.first_round_order.end(),
              [&](const std::string& a, const std::string& b) {
                return out.last[a].first.stats.median < out.last[b].first.stats.median;
              });
  }
  return out;
}

}  // namespace kk3::sweep
