#pragma once
// The flags that set the objective's chain model (`time --timing chain`), over the family's
// default model (families::family::default_objective, docs/objective.md).
#include <map>
#include <string>

#include "cli/commands.hpp"
#include "families/family.hpp"
#include "results/objective.hpp"

namespace kk3::cli {

/// --producer-us, --producer-ctas-per-sm, --producer-threads, --producer-smem, --producer-trigger,
/// --consumer-ctas-per-sm, --consumer-threads, --consumer-smem, --consumer-reads: the values
/// given, by flag name without the dashes ("producer-us").
struct objective_options {
  std::map<std::string, std::string> values;
};

/// Adds the flags to a subcommand.
void add_objective_options(CLI::App* cmd, objective_options& o);

/// `base` (the sweep's objective for the family) with timing `mode`, PDL `pdl` and the flags'
/// values over its chain model. Throws error(usage) naming the flag for a bad value, or a flag
/// given without chain mode.
results::objective objective_of(const results::objective& base, results::timing_mode mode, bool pdl,
                                const objective_options& o);

}  // namespace kk3::cli
