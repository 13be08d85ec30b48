#pragma once
// Screening (README, "The sweep"): successive halving of one shape's candidates by short
// rounds, then the survivors' final round to the noise target.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sweep/sweep_config.hpp"
#include "timing/timer.hpp"

namespace kk3::sweep {

/// What screening one shape gave.
struct screened {
  std::vector<timing::measurement> finals;  ///< the final round's measurements
  std::map<std::string, std::pair<timing::measurement, int>>
      last;                                    ///< variant -> (measurement, rounds)
  std::vector<std::string> first_round_order;  ///< fastest first
};

/// Successive halving of `all` (the ones in `protect` always survive a round), then the final
/// round, every round timed under `objective`; every candidate's last measurement lands in
/// `last`, with the rounds it took part in.
screened screen_and_measure(const timing::timer& timer, const std::vector<timing::candidate>& all,
                            const std::set<std::string>& protect, const sweep_config& cfg,
                            const results::objective& objective);

}  // namespace kk3::sweep
