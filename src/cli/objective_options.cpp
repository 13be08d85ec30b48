#include "cli/objective_options.hpp"

#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::cli {
namespace {

/// One flag: its name (without the dashes), the member of the objective's JSON it sets, and its
/// help.
struct flag {
  std::string name;
  std::string neighbour;  ///< "producer" or "consumer"
  std::string key;
  std::string help;
};

/// The flags both neighbours have (--producer-threads, --consumer-threads, ...), for `side`.
void add_geometry_flags(std::vector<flag>& all, const std::string& side) {
  const std::string its = "the " + side + "'s ";
  all.push_back({side + "-ctas-per-sm", side, "ctas_per_sm", its + "CTAs per SM"});
  all.push_back({side + "-threads", side, "threads", its + "threads per CTA"});
  all.push_back(
      {side + "-smem", side, "smem_bytes", its + "dynamic shared memory per CTA, bytes, or max"});
}

const std::vector<flag>& flags() {
  static const std::vector<flag> all = [] {
    std::vector<flag> v;
    v.push_back({"producer-us", "producer", "duration_us",
                 "how long the producer runs, us (default: the family's model, "
                 "docs/objective.md)"});
    add_geometry_flags(v, "producer");
    v.push_back({"producer-trigger", "producer", "trigger",
                 "when the producer triggers its dependents: start, end, never, or a fraction of "
                 "its duration"});
    add_geometry_flags(v, "consumer");
    v.push_back({"consumer-reads", "consumer", "reads",
                 "what the consumer reads after its wait: outputs, written (outputs and in-place "
                 "tensors) or none"});
    return v;
  }();
  return all;
}

}  // namespace

void add_objective_options(CLI::App* cmd, objective_options& o) {
  for (const flag& f : flags()) {
    // std::map keeps its elements in place: each option writes into its own string.
    cmd->add_option(std::string("--") + f.name, o.values[f.name], std::string("chain: ") + f.help)
        ->group("Chain model");
  }
}

results::objective objective_of(const results::objective& base, results::timing_mode mode, bool pdl,
                                const objective_options& o) {
  results::ordered_json j = {{"timing", results::to_string(mode)}, {"pdl", pdl}};
  for (const flag& fl : flags()) {
    const auto given = o.values.find(fl.name);
    if (given == o.values.end() || given->second.empty()) continue;
    const std::string& value = given->second;
    if (mode != results::timing_mode::chain) {
      throw error(error_kind::usage,
                  std::string("--") + fl.name + " models the chain: it needs --timing chain");
    }
    // A number where the value is one ("5", "0.5"), else a word of the JSON form ("max", "end").
    results::ordered_json v = value;
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0') {
      const bool whole = std::fabs(x) < 1e15 && x == std::floor(x);
      v = whole ? results::ordered_json(static_cast<long long>(x)) : results::ordered_json(x);
    }
    j[fl.neighbour][fl.key] = v;
  }
  return results::objective_from_json(j, base, "",
                                      [&](const std::string& at, const std::string& what) {
                                        std::string name = at;
                                        for (const flag& fl : flags()) {
                                          if (at == std::string("/") + fl.neighbour + "/" + fl.key)
                                            name = std::string("--") + fl.name;
                                        }
                                        throw error(error_kind::usage, name + ": " + what);
                                      });
}

}  // namespace kk3::cli
