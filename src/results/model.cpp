#include "results/model.hpp"

#include <algorithm>

namespace kk3::results {

std::optional<baseline_summary> dispatch_entry::summarize_baseline() const {
  baseline_summary out;
  for (const select::choice& c : choices) {
    if (!c.baseline) continue;
    ++out.counts;
    // Against a baseline variant that no longer qualifies here, the gain is over the next
    // incumbent.
    if (c.winner != *c.baseline)
      out.changes.push_back(
          {c.tokens, *c.baseline, c.winner, c.baseline_qualified, c.gain, c.gain_sigmas});
  }
  if (out.counts == 0) return std::nullopt;
  return out;
}

bool arch_resources::ships_at(long long tokens) const {
  return std::any_of(ships.begin(), ships.end(),
                     [&](const token_range& r) { return r.contains(tokens); });
}

double arch_resources::waves(long long ctas) const {
  if (target.empty() || sm_count <= 0 || ctas_per_sm <= 0) return -1;
  return static_cast<double>(ctas) / (static_cast<double>(sm_count) * ctas_per_sm);
}

std::string record::key() const {
  return family + "/" + mode + "/T" + std::to_string(tokens) + shape_suffix(shape) + "/" + variant;
}

std::string dispatch_entry::range_at(std::size_t i) const {
  return at + "/ranges/" + std::to_string(i);
}

std::string shape_key(const std::string& family, const std::string& mode, const dims& shape) {
  std::string key = family + "/" + mode;
  for (const auto& [name, value] : shape) key += "/" + name + "=" + std::to_string(value);
  return key;
}

std::string count_key(const std::string& shape, long long tokens) {
  return shape + "/T" + std::to_string(tokens);
}

}  // namespace kk3::results
