// `kk3tune compare` of two sweeps by what ships (compare/comparison_parts.hpp): the winner of
// each table at each token count of the plans, timed in both files, judged with the sweep's own
// selection rule.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compare/comparison_parts.hpp"
#include "compare/timing_verdict.hpp"
#include "core/text.hpp"
#include "results/dims.hpp"
#include "select/selection.hpp"

namespace kk3::compare::detail {
namespace {

// --- what ships: the winner at each token count --------------------------------------------

// The token counts a table covers: the plan's counts inside one of its ranges (every range's
// ends when the file gives no plan).
std::map<long long, const select::range*> winners_of(const results::dispatch_entry& d,
                                                     const results::result_set& doc) {
  std::vector<long long> tokens;
  if (doc.plan && !doc.plan->tokens.empty()) {
    tokens = doc.plan->tokens;
  } else {
    for (const auto& r : d.ranges) tokens.insert(tokens.end(), {r.min_tokens, r.max_tokens});
  }
  std::map<long long, const select::range*> out;
  for (long long t : tokens) {
    for (const auto& r : d.ranges) {
      if (t >= r.min_tokens && t <= r.max_tokens) out[t] = &r;
    }
  }
  return out;
}

// The plans' selection noise, the stricter of the two (a plan that gives none: the sweep's
// defaults).
shipped_rule rule_of(const results::result_set& base, const results::result_set& next,
                     double threshold) {
  shipped_rule rule;
  rule.threshold = threshold;
  rule.noise_sigmas = 0;
  rule.noise_floor = 0;
  for (const results::result_set* d : {&base, &next}) {
    const bool has = d->plan.has_value();
    rule.noise_sigmas =
        std::max(rule.noise_sigmas, has && d->plan->noise_sigmas ? *d->plan->noise_sigmas : 2.0);
    rule.noise_floor =
        std::max(rule.noise_floor, has && d->plan->noise_floor ? *d->plan->noise_floor
                                                               : select::k_default_noise_floor);
  }
  return rule;
}

select::timed_variant timed_of(const results::record& r) {
  select::timed_variant t;
  t.variant = r.variant;
  t.median_us = r.stats->median;
  t.rel_stderr = r.stats->rel_stderr_median;
  t.qualified = true;
  return t;
}

// The records a file has of one table (family, mode, shape): whether it swept it at all.
std::set<std::string> swept_tables(const results::result_set& d) {
  std::set<std::string> out;
  for (const auto& r : d.records) {
    out.insert(r.family + "/" + r.mode +
               (results::shape_text(r.shape).empty() ? "" : "/" + results::shape_text(r.shape)));
  }
  for (const auto& t : d.dispatch) out.insert(entry_of(t));
  return out;
}

/// One file's side of the comparison: its records by key and the tables it swept.
struct side {
  const results::result_set& doc;
  record_index index;
  std::set<std::string> swept;
};

/// The timed record of `variant` at `tokens` in table `t` of `s`, or none.
const results::record* winner_record(const side& s, const results::dispatch_entry& t,
                                     long long tokens, const std::string& variant) {
  results::record probe;
  probe.family = t.family;
  probe.mode = t.mode;
  probe.shape = t.shape;
  probe.tokens = tokens;
  probe.variant = variant;
  const auto found = s.index.find(probe.key());
  if (found == s.index.end()) return nullptr;
  const results::record& r = s.doc.records[found->second];
  return is_timed(r) ? &r : nullptr;
}

/// Whether `s`'s plan swept token count `t` (a file without a plan, or with no counts: yes).
bool plan_has(const side& s, long long t) {
  const results::result_set& d = s.doc;
  return !d.plan || d.plan->tokens.empty() ||
         std::count(d.plan->tokens.begin(), d.plan->tokens.end(), t) > 0;
}

/// The timing verdict of two winners timed under one objective.
void judge_times(const results::record& rb, const results::record& rn,
                 const select::selection_rule& rule, count_comparison& cc) {
  const select::timed_variant tb = timed_of(rb), tn = timed_of(rn);
  cc.base_median_us = tb.median_us;
  cc.new_median_us = tn.median_us;
  cc.effect = tn.median_us / tb.median_us - 1;
  const double se = std::hypot(select::standard_error(tb, rule), select::standard_error(tn, rule));
  cc.sigmas = se > 0 ? (tn.median_us - tb.median_us) / se : 0;
  cc.result = select::clearly_faster(tb, tn, rule)   ? count_verdict::slower
              : select::clearly_faster(tn, tb, rule) ? count_verdict::faster
                                                     : count_verdict::same;
}

/// A compared count in the totals.
void tally(shipped_counts& k, const count_comparison& cc) {
  ++k.compared;
  k.winners_changed += cc.winner_changed();
  switch (cc.result) {
    case count_verdict::same:
      ++k.same;
      break;
    case count_verdict::faster:
      ++k.faster;
      break;
    case count_verdict::slower:
      ++k.slower;
      break;
    case count_verdict::lost:
      ++k.lost;
      break;
    case count_verdict::gained:
      ++k.gained;
      break;
    case count_verdict::untimed:
      ++k.untimed;
      break;
  }
}

/// Table `entry` (b in BASE, n in NEW; either may be missing) count by count into c.shipped;
/// objectives that make two winners' times incomparable go to `objective_differences`.
void compare_table_counts(const std::string& entry, const results::dispatch_entry* b,
                          const results::dispatch_entry* n, const side& base, const side& next,
                          const select::selection_rule& rule, comparison& c,
                          std::set<std::string>& objective_differences) {
  shipped_counts& k = c.shipped_totals;
  const results::dispatch_entry& any = b ? *b : *n;
  std::map<long long, std::pair<const select::range*, const select::range*>> counts;
  if (b) {
    for (const auto& [t, r] : winners_of(*b, base.doc)) counts[t].first = r;
  }
  if (n) {
    for (const auto& [t, r] : winners_of(*n, next.doc)) counts[t].second = r;
  }
  for (const auto& [tokens, winners] : counts) {
    const auto [wb, wn] = winners;
    // A count the other file's plan did not sweep is no verdict.
    if (!wn && (!next.swept.count(entry) || !plan_has(next, tokens))) {
      ++k.only_in_base;
      continue;
    }
    if (!wb && (!base.swept.count(entry) || !plan_has(base, tokens))) {
      ++k.only_in_new;
      continue;
    }
    count_comparison cc;
    cc.table = entry;
    cc.family = any.family;
    cc.mode = any.mode;
    cc.shape = any.shape;
    cc.tokens = tokens;
    if (wb) cc.base_winner = wb->winner;
    if (wn) cc.new_winner = wn->winner;
    if (!wn) {
      cc.result = count_verdict::lost;
    } else if (!wb) {
      cc.result = count_verdict::gained;
    } else {
      const results::record* rb = winner_record(base, *b, tokens, cc.base_winner);
      const results::record* rn = winner_record(next, *n, tokens, cc.new_winner);
      if (!rb || !rn) {
        cc.result = count_verdict::untimed;
      } else if (const auto why = results::differences(rb->objective, rn->objective);
                 !why.empty()) {
        cc.result = count_verdict::untimed;
        objective_differences.insert(join(why, ", "));
      } else {
        judge_times(*rb, *rn, rule, cc);
      }
    }
    tally(k, cc);
    c.shipped.push_back(std::move(cc));
  }
}

}  // namespace

void compare_shipped(const results::result_set& base, const results::result_set& next,
                     comparison& c) {
  c.shipped_verdict = true;
  c.rule = rule_of(base, next, c.options.timing.threshold);
  const select::selection_rule rule{c.rule.threshold, c.rule.noise_sigmas, c.rule.noise_floor};
  std::size_t repeats = 0;
  const side b{base, index_by_key(base, repeats), swept_tables(base)};
  const side n{next, index_by_key(next, repeats), swept_tables(next)};
  std::map<std::string, std::pair<const results::dispatch_entry*, const results::dispatch_entry*>>
      tables;
  for (const auto& d : base.dispatch) tables[entry_of(d)].first = &d;
  for (const auto& d : next.dispatch) tables[entry_of(d)].second = &d;
  std::set<std::string> objective_differences;
  for (const auto& [entry, both] : tables)
    compare_table_counts(entry, both.first, both.second, b, n, rule, c, objective_differences);
  for (const std::string& why : objective_differences) {
    c.notes.push_back(
        "the tables' winners were timed under different objectives (BASE vs NEW: " + why +
        "): their times are not comparable, so those counts get no timing verdict; make the "
        "baseline again under NEW's objective");
  }
}

}  // namespace kk3::compare::detail
