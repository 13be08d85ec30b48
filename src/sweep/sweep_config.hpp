#pragma once
// The sweep's plan file (configs/default.json): which families, modes, model shapes and token
// counts a sweep covers, and the settings of screening, timing, verification and selection.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "families/shape.hpp"
#include "select/selection.hpp"

namespace kk3::sweep {

/// One family's part of the plan.
struct family_plan {
  std::string family;
  std::vector<std::string> modes;      ///< empty = every mode of the family
  families::planned_dims shapes;       ///< values of model dimensions the family lets a plan
                                       ///< choose ("shapes": {"heads": [16]}); absent = the model's
  std::vector<std::string> variants;   ///< only these ids ("reference" allowed); empty = all
  std::string variants_note;           ///< "variants_note": why the plan takes only `variants`
  std::vector<std::string> shapes_at;  ///< the JSON pointer of each of `shapes`, for messages
  /// "objective": a timing mode or an object overriding the family's objective (its
  /// default_objective: chain with its neighbours for the PDL families); read by make_plan.
  std::optional<nlohmann::ordered_json> objective;
};

/// How candidates are screened before the final round (successive halving).
struct screening {
  std::size_t samples = 2;      ///< samples per candidate in a screening round
  double keep_fraction = 0.25;  ///< fraction kept after a round (at least keep_min)
  std::size_t keep_min = 4;     ///< never fewer survivors than this
  std::size_t final_max = 6;    ///< go to the final round at or below this many
  std::size_t carry = 48;       ///< token counts between full screens start from the previous
                                ///< count's best `carry` (0: always screen every variant)
  double full_every = 4;  ///< screen every variant again when T >= this x the last full screen
};

/// The final round's stopping rule.
struct final_timing {
  double noise_percent = 0.5;
  std::size_t min_samples = 10;
  double max_time_s = 0.2;
};

/// The whole plan.
struct sweep_config {
  std::filesystem::path file;
  std::vector<family_plan> families;
  std::vector<long long> tokens;  ///< ascending, distinct
  select::selection_rule selection;
  screening screen;
  final_timing timing;
  std::vector<long long> verify_tokens;  ///< token counts verified besides the edge shapes
  bool is_family_config = false;         ///< the file was a family config (see load_sweep_config)
};

/// Reads and checks a plan; errors (error_kind::config) name the file and the JSON path.
/// A family config (a file with a "family" key) is also accepted: a plan of that one family
/// with the default token counts, its config read from that file.
sweep_config load_sweep_config(const std::filesystem::path& file);

/// The token counts of the default sweep (issue 6).
const std::vector<long long>& default_tokens();

}  // namespace kk3::sweep
