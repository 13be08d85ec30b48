#pragma once
// JSON for `kk3tune time --json`: the context and one measurement with its raw samples.
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "families/shape.hpp"
#include "results/context.hpp"
#include "timing/timer.hpp"

namespace kk3::report {

using json = nlohmann::ordered_json;

/// What was measured, beside the measurement itself.
struct measured_subject {
  std::string family, mode;
  long long tokens = 0;
  families::dims shape;  ///< the family's key dimensions
  unsigned long long seed = 0;
  double copy_ceiling_tb_s = 0;  ///< the bandwidth ceiling the fraction is taken of
  std::string reference;  ///< the family's reference variant (its entry says "reference": true)
  results::objective objective;  ///< what the times stand for (each entry's timing.objective)
};

/// The JSON document (pretty-printed, 2-space indent): the context, the subject, and one
/// entry in "results" per measured variant.
std::string measurement_json(const results::run_context& context, const measured_subject& subject,
                             const std::vector<timing::measurement>& results);

}  // namespace kk3::report
