#include "cli/objective_options.hpp"

#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::cli {
namespace {

struct flag {
  const char* name;       ///< without the dashes
  const char* neighbour;  ///< "producer" or "consumer"
  const char* key;        ///< in the objective's JSON
};

const std::vector<flag>& flags() {
  static const std::vector<flag> all = {
      {"producer-us", "producer", "duration_us"},       {"producer-ctas-per-sm", "producer", "ctas_per_sm"},
      {"producer-threads", "producer", "threads"},      {"producer-smem", "producer", "smem_bytes"},
      {"producer-trigger", "producer", "trigger"},      {"consumer-ctas-per-sm", "consumer", "ctas_per_sm"},
      {"consumer-threads", "consumer", "threads"},      {"consumer-smem", "consumer", "smem_bytes"},
      {"consumer-reads", "consumer", "reads"}};
  return all;
}

std::string& field(objective_options& o, std::size_t i) {
  std::string* fields[] = {&o.producer_us,          &o.producer_ctas_per_sm, &o.producer_threads,
                           &o.producer_smem,        &o.producer_trigger,     &o.consumer_ctas_per_sm,
                           &o.consumer_threads,     &o.consumer_smem,        &o.consumer_reads};
  return *fields[i];
}

}  // namespace

void add_objective_options(CLI::App* cmd, objective_options& o) {
  const char* help[] = {"chain: how long the producer runs, us (default: the family's model, docs/objective.md)",
                        "chain: the producer's CTAs per SM",
                        "chain: the producer's threads per CTA",
                        "chain: the producer's dynamic shared memory per CTA, bytes, or max",
                        "chain: when the producer triggers its dependents: start, end, never, or a fraction of its duration",
                        "chain: the consumer's CTAs per SM",
                        "chain: the consumer's threads per CTA",
                        "chain: the consumer's dynamic shared memory per CTA, bytes, or max",
                        "chain: what the consumer reads after its wait: outputs, written (outputs and in-place tensors) or none"};
  for (std::size_t i = 0; i < flags().size(); ++i) {
    cmd->add_option(std::string("--") + flags()[i].name, field(o, i), help[i])->group("Chain model");
  }
}

timing::objective objective_of(const families::family& f, timing::timing_mode mode, bool pdl, const objective_options& given) {
  objective_options o = given;
  timing::ordered_json j = {{"timing", timing::to_string(mode)}, {"pdl", pdl}};
  for (std::size_t i = 0; i < flags().size(); ++i) {
    const std::string& value = field(o, i);
    if (value.empty()) continue;
    const flag& fl = flags()[i];
    if (mode != timing::timing_mode::chain) {
      throw error(error_kind::usage, std::string("--") + fl.name + " models the chain: it needs --timing chain");
    }
    // A number where the value is one ("5", "0.5"), else a word of the JSON form ("max", "end").
    timing::ordered_json v = value;
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0') {
      v = x == static_cast<double>(static_cast<long long>(x)) ? timing::ordered_json(static_cast<long long>(x)) : timing::ordered_json(x);
    }
    j[fl.neighbour][fl.key] = v;
  }
  return timing::objective_from_json(j, f.default_objective(), "", [&](const std::string& at, const std::string& what) {
    std::string name = at;
    for (const flag& fl : flags()) {
      if (at == std::string("/") + fl.neighbour + "/" + fl.key) name = std::string("--") + fl.name;
    }
    throw error(error_kind::usage, name + ": " + what);
  });
}

}  // namespace kk3::cli
