#include "select/selection.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace kk3::select {

bool clearly_faster(const timed_variant& challenger, const timed_variant& incumbent, const selection_rule& rule) {
  const double gain = incumbent.median_us - challenger.median_us;
  const double se = std::hypot(challenger.rel_stderr * challenger.median_us, incumbent.rel_stderr * incumbent.median_us);
  return gain > rule.min_gain * incumbent.median_us && gain > rule.noise_sigmas * se;
}

std::optional<choice> choose(long long tokens, const std::vector<timed_variant>& timed, const std::string& reference,
                             const std::optional<std::string>& previous, const selection_rule& rule) {
  std::vector<const timed_variant*> ok;
  for (const auto& t : timed) {
    if (t.qualified) ok.push_back(&t);
  }
  if (ok.empty()) return std::nullopt;
  // Fastest first; equal medians by name, so the choice never depends on the input order.
  std::sort(ok.begin(), ok.end(), [](const timed_variant* a, const timed_variant* b) {
    return a->median_us != b->median_us ? a->median_us < b->median_us : a->variant < b->variant;
  });
  auto find = [&](const std::string& id) -> const timed_variant* {
    for (const timed_variant* t : ok) {
      if (t->variant == id) return t;
    }
    return nullptr;
  };
  const timed_variant* incumbent = previous ? find(*previous) : nullptr;
  if (!incumbent) incumbent = find(reference);

  choice c;
  c.tokens = tokens;
  const timed_variant* winner = ok.front();
  if (incumbent && winner != incumbent && !clearly_faster(*winner, *incumbent, rule)) {
    winner = incumbent;
    c.incumbent_kept = true;
  }
  c.winner = winner->variant;
  for (const timed_variant* t : ok) {
    if (t == winner) continue;
    c.runner_up = t->variant;
    c.margin = t->median_us / winner->median_us - 1;
    break;
  }
  return c;
}

std::vector<range> merge(const std::vector<choice>& choices) {
  std::vector<range> ranges;
  std::vector<std::vector<const choice*>> members;
  for (const choice& c : choices) {
    if (ranges.empty() || ranges.back().winner != c.winner) {
      range r;
      r.min_tokens = c.tokens;
      r.winner = c.winner;
      ranges.push_back(r);
      members.emplace_back();
    }
    ranges.back().max_tokens = c.tokens;
    ranges.back().tokens.push_back(c.tokens);
    ranges.back().incumbent_kept = ranges.back().incumbent_kept || c.incumbent_kept;
    members.back().push_back(&c);
  }
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    std::map<std::string, int> votes;
    std::vector<double> margins;
    for (const choice* c : members[i]) {
      if (c->runner_up) ++votes[*c->runner_up];
      margins.push_back(c->margin);
    }
    int best = 0;
    for (const auto& [id, n] : votes) {  // ties: the first name in order
      if (n > best) {
        best = n;
        ranges[i].runner_up = id;
      }
    }
    std::sort(margins.begin(), margins.end());
    const std::size_t n = margins.size();
    ranges[i].margin = n % 2 ? margins[n / 2] : (margins[n / 2 - 1] + margins[n / 2]) / 2;
  }
  return ranges;
}

}  // namespace kk3::select
