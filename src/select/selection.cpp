#include "select/selection.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace kk3::select {

double standard_error(const timed_variant& t, const selection_rule& rule) {
  return std::max(t.rel_stderr, rule.noise_floor) * t.median_us;
}

bool clearly_faster(const timed_variant& challenger, const timed_variant& incumbent,
                    const selection_rule& rule) {
  const double gain = incumbent.median_us - challenger.median_us;
  const double se = std::hypot(standard_error(challenger, rule), standard_error(incumbent, rule));
  return gain > rule.min_gain * incumbent.median_us && gain > rule.noise_sigmas * se;
}

std::optional<choice> choose(long long tokens, const std::vector<timed_variant>& timed,
                             const incumbency& who, const selection_rule& rule) {
  std::vector<const timed_variant*> ok;
  for (const auto& t : timed) {
    if (t.qualified) ok.push_back(&t);
  }
  if (ok.empty()) return std::nullopt;
  // Fastest first; equal medians by knob order, so the choice never depends on the input order.
  std::sort(ok.begin(), ok.end(), [](const timed_variant* a, const timed_variant* b) {
    return a->median_us != b->median_us ? a->median_us < b->median_us
           : a->order != b->order       ? a->order < b->order
                                        : a->variant < b->variant;
  });
  auto find = [&](const std::optional<std::string>& id) -> const timed_variant* {
    for (const timed_variant* t : ok) {
      if (id && t->variant == *id) return t;
    }
    return nullptr;
  };
  const timed_variant* incumbent = find(who.baseline);
  // The floor defends a committed choice only; everything else is measured in this run alone.
  const selection_rule own{rule.min_gain, rule.noise_sigmas, 0};
  const selection_rule& defence = incumbent ? rule : own;
  if (!incumbent) incumbent = find(who.previous);
  if (!incumbent) incumbent = find(who.reference);
  const timed_variant* fastest = ok.front();

  choice c;
  c.tokens = tokens;
  c.baseline = who.baseline;
  c.baseline_qualified = find(who.baseline) != nullptr;
  const timed_variant* winner = incumbent;
  if (!incumbent || clearly_faster(*fastest, *incumbent, defence)) {
    // The tie band: not clearly slower than the fastest, and (with an incumbent) clearly faster
    // than it.
    std::vector<const timed_variant*> band;
    for (const timed_variant* t : ok) {
      if (!clearly_faster(*fastest, *t, own) &&
          (!incumbent || clearly_faster(*t, *incumbent, defence)))
        band.push_back(t);
    }
    std::stable_sort(band.begin(), band.end(), [](const timed_variant* a, const timed_variant* b) {
      return a->order < b->order;
    });
    winner = band.front();
    for (const timed_variant* t : band) {
      if (who.previous && t->variant == *who.previous) winner = t;
    }
    if (incumbent) {
      c.gain = incumbent->median_us / winner->median_us - 1;
      const double se =
          std::hypot(standard_error(*winner, defence), standard_error(*incumbent, defence));
      c.gain_sigmas = se > 0 ? (incumbent->median_us - winner->median_us) / se : 0;
    }
  } else {
    c.incumbent_kept = incumbent != fastest;
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
