#include "sweep/item.hpp"

#include <algorithm>
#include <csignal>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/watch.hpp"
#include "families/registry.hpp"
#include "results/codec.hpp"
#include "sweep/journal.hpp"
#include "sweep/screening.hpp"
#include "verify/unlaunchable.hpp"

namespace kk3::sweep {
namespace {

volatile std::sig_atomic_t g_stop_requested = 0;

/// The item's state across its token counts: what screening carries from one count to the next,
/// and the final rounds that selection and verification need afterwards.
struct item_state {
  std::optional<std::string> optimistic;  ///< the winner so far, as if every finalist verifies
  std::vector<std::string> carried;       ///< the previous count's first-round order
  long long last_full = 0;                ///< the last count that screened every variant
  std::vector<std::pair<long long, std::vector<select::timed_variant>>> finals_by_count;
  std::map<std::string, std::vector<std::size_t>>
      final_records;  ///< variant -> indices into out.records
  std::map<std::string, journal_fault>
      faulty;  ///< variants that ended or hung a worker at this shape
};

std::map<std::string, journal_fault> faults_at(const sweep_request& r, const std::string& key) {
  std::map<std::string, journal_fault> out;
  if (!r.log) return out;
  for (const journal_fault& f : r.log->state().faults) {
    if (f.shape == key) out[f.variant] = f;
  }
  return out;
}

record unmeasured_record(const work_item& item, const families::shape& s, const space::variant& v,
                         results::status status, const std::string& reason) {
  record r = make_record(item, s, v);
  r.status = status;
  r.reason = reason;
  return r;
}

/// The baseline's choice at count `t` of the item, when sweep --baseline has one.
std::optional<std::string> baseline_at(const sweep_request& r, const work_item& item, long long t) {
  return r.baseline ? r.baseline->at(item.key, t) : std::nullopt;
}

/// A variant's place in the family's knob order (selection's last tie-break).
std::size_t order_of(const work_item& item, const std::string& id) {
  const auto& vs = item.family->variants;
  return static_cast<std::size_t>(
      std::find_if(vs.begin(), vs.end(), [&](const space::variant* v) { return v->id == id; }) -
      vs.begin());
}

const space::variant& variant_by_id(const work_item& item, const std::string& id) {
  for (const space::variant* v : item.family->variants) {
    if (v->id == id) return *v;
  }
  throw error(error_kind::config,
              item.key + ": no variant " + id);  // a journal of another plan: its key prevents this
}

/// The timing candidates of one count: the item's kernels, less the faulty and unlaunchable ones,
/// and (between full screens) less those outside the carried pool.
std::vector<timing::candidate> candidates_at(
    const item_tools& g, const work_item& item, const std::vector<jit::loaded_kernel>& kernels,
    const families::shape& s, const std::vector<families::workspace*>& ws, const item_state& st,
    const std::set<std::string>* pool, std::map<std::string, std::string>& unlaunchable) {
  std::vector<timing::candidate> out;
  for (const jit::loaded_kernel& k : kernels) {
    if (!k.ok()) continue;  // recorded compile_failed with the mode
    const std::string& id = k.variant->id;
    std::string why = verify::unlaunchable_unless_reference(*item.family->space.impl, *k.variant,
                                                            *item.mode, s, k.function, g.info);
    if (!why.empty()) {
      unlaunchable[id] = std::move(why);
      continue;
    }
    if (st.faulty.count(id) || (pool && !pool->count(id))) continue;
    out.push_back(timing::make_candidate(*item.family->space.impl, *k.variant, *item.mode, s,
                                         k.function, ws));
  }
  return out;
}

/// Screens and measures one count (or takes it from the journal).
journal_count measure_count(const item_tools& g, const work_item& item,
                            const std::vector<jit::loaded_kernel>& kernels, long long t,
                            bool full_screen, const item_state& st) {
  const sweep_request& r = g.request;
  const std::string ckey = count_key(item.key, t);
  if (r.log && r.log->state().counts.count(ckey))
    return r.log->state().counts.at(ckey);  // measured before a stop
  families::shape s = item.shape;
  s.tokens = t;
  watch::set_shape(item.key, t);
  // One workspace, or (chain objective) several that the chains use in turn; the first is the
  // one every objective measures on, so a count's inputs do not depend on the objective.
  const families::family& fam = *item.family->space.impl;
  const unsigned rotation = item.family->objective.mode == results::timing_mode::chain
                                ? g.timer.chain_rotation(fam.bytes_moved(s, *item.mode))
                                : 1;
  std::vector<std::unique_ptr<families::workspace>> owned;
  std::vector<families::workspace*> ws;
  // The rotation is about where the data lies, not what it is: every workspace holds the same
  // random inputs, drawn once.
  const families::problem inputs =
      fam.make_problem(s, *item.mode, g.seed + static_cast<unsigned long long>(t));
  for (unsigned i = 0; i < rotation; ++i) {
    owned.push_back(fam.make_workspace(s, *item.mode, inputs));
    ws.push_back(owned.back().get());
  }
  std::set<std::string> protect = {item.family->reference->id};
  if (st.optimistic) protect.insert(*st.optimistic);
  if (const auto b = baseline_at(r, item, t))
    protect.insert(*b);  // the incumbent is measured head to head
  std::set<std::string> pool;
  if (!full_screen) {
    for (std::size_t i = 0; i < st.carried.size() && i < r.config.screen.carry; ++i)
      pool.insert(st.carried[i]);
    pool.insert(protect.begin(), protect.end());
  }
  std::map<std::string, std::string> unlaunchable;
  const auto candidates =
      candidates_at(g, item, kernels, s, ws, st, full_screen ? nullptr : &pool, unlaunchable);
  screened result;
  {
    nvtx::scoped_range shape_range(
        item.mode->name + "-T" + std::to_string(t) + families::shape_suffix(item.key_shape), t);
    result = screen_and_measure(g.timer, candidates, protect, r.config, item.family->objective);
  }
  journal_count count;
  count.tokens = t;
  count.carried = result.first_round_order;
  for (const auto& [id, last] : result.last) {
    record rec = make_record(item, s, variant_by_id(item, id));
    const bool final = std::any_of(result.finals.begin(), result.finals.end(),
                                   [&id = id](const auto& f) { return f.label == id; });
    rec.rounds = last.second;
    rec.stats = last.first.stats;
    rec.samples_us = last.first.samples_us;
    rec.bytes_moved = last.first.bytes_moved;
    rec.status = final ? results::status::unverified
                       : results::status::dropped;  // finalists: until the shape's are verified
    if (!final) rec.reason = "screened out after " + std::to_string(last.second) + " round(s)";
    count.records.push_back(std::move(rec));
  }
  for (const auto& [id, f] : st.faulty) {
    if (f.tokens == t)
      count.records.push_back(
          unmeasured_record(item, s, variant_by_id(item, id), f.status, f.reason));
  }
  for (const auto& [id, why] : unlaunchable)
    count.records.push_back(
        unmeasured_record(item, s, variant_by_id(item, id), results::status::unlaunchable, why));
  if (r.log) r.log->add_count(ckey, count);
  return count;
}

/// Moves a count's records into `out`, each with its throughput against the run's copy ceiling,
/// remembers its final round, and updates the optimistic choice that protects the likely incumbent
/// at the next count. Returns the count's progress line.
std::string take_count(const item_tools& g, const work_item& item, journal_count count,
                       item_state& st, results::result_set& out) {
  st.carried = count.carried;
  std::vector<select::timed_variant> timed;
  std::size_t timed_count = 0;
  for (record& rec : count.records) {
    if (rec.status == results::status::unverified) {
      timed.push_back({rec.variant, rec.stats->median, rec.stats->rel_stderr_median, true,
                       order_of(item, rec.variant)});
      st.final_records[rec.variant].push_back(out.records.size());
    }
    timed_count += rec.stats.has_value();
    results::set_throughput(rec, out.plan->copy_ceiling_tb_s);
    out.records.push_back(std::move(rec));
  }
  const select::incumbency who{baseline_at(g.request, item, count.tokens), st.optimistic,
                               item.family->reference->id};
  if (const auto c = select::choose(count.tokens, timed, who, g.request.config.selection))
    st.optimistic = c->winner;
  st.finals_by_count.emplace_back(count.tokens, timed);
  return item.key + " T=" + std::to_string(count.tokens) + ": " + std::to_string(timed_count) +
         " timed, " + std::to_string(timed.size()) + " finalists";
}

verification to_verification(const verify::verify_record& v, unsigned long long seed) {
  verification out;
  out.status = v.outcome;
  out.reason = v.reason.substr(0, v.reason.find('\n'));
  out.seed = seed;
  out.checks = v.checks;
  out.shapes = v.shapes;
  if (v.first_mismatch) {
    const auto& f = *v.first_mismatch;
    out.first_mismatch = f.tensor + "[" + std::to_string(f.index) + "] expected " + f.expected +
                         " got " + f.got + " at " + f.shape + " (against " + f.against + ")";
  }
  return out;
}

/// Verifies the item's finalists that the journal has not verified (the reference always: the
/// verifier compares every variant with it). Returns variant -> outcome.
std::map<std::string, verification> verify_finalists(const item_tools& g, const work_item& item,
                                                     const item_state& st) {
  const sweep_request& r = g.request;
  std::map<std::string, verification> verified;
  if (r.log && r.log->state().verified.count(item.key))
    verified = r.log->state().verified.at(item.key);
  const space::variant& reference = *item.family->reference;
  std::vector<space::variant> to_verify = {reference};
  for (const auto& [id, indices] : st.final_records) {
    if (!verified.count(id) && !st.faulty.count(id) && id != reference.id)
      to_verify.push_back(variant_by_id(item, id));
  }
  if (to_verify.size() > 1 || !verified.count(reference.id)) {
    watch::set_shape(item.key, 0);
    verify::verify_options vo;
    vo.seed = g.seed;
    vo.tokens = r.config.verify_tokens;
    vo.shapes = item.family->space.impl->planned_of(item.shape);
    std::map<std::string, verification> now;
    for (const verify::verify_record& v :
         g.verifier.verify_mode(item.family->space, *item.mode, to_verify, vo)) {
      // Under a supervisor a fault is the variant's, not the sweep's: this worker ends and the
      // next one verifies the others without it.
      if (v.outcome == results::status::launch_failed)
        throw error(error_kind::launch, v.variant + ": " + v.reason);
      now[v.variant] = to_verification(
          v, g.seed);  // unlaunchable at a verification shape: not ok, never selected
    }
    verified.insert(now.begin(), now.end());
    if (r.log) r.log->add_verified(item.key, now);
  }
  for (const auto& [id, f] : st.faulty) {
    if (f.tokens == 0)
      verified[id] =
          verification{f.status, f.reason, g.seed, 0, {}, {}};  // it failed in verification
  }
  return verified;
}

/// Writes the verification outcome into the finalists' records.
void mark_finalists(const item_state& st, const std::map<std::string, verification>& verified,
                    results::result_set& out) {
  for (const auto& [id, indices] : st.final_records) {
    const auto found = verified.find(id);
    for (std::size_t i : indices) {
      if (found == verified.end()) {  // faulted at a later count, after being a finalist here
        out.records[i].status = st.faulty.at(id).status;
        out.records[i].reason = "not verified: " + st.faulty.at(id).reason;
        continue;
      }
      out.records[i].verified = found->second;
      out.records[i].status = found->second.status;
      out.records[i].reason = found->second.reason;
    }
  }
}

/// The item's dispatch table: the choice at each count over the verified finalists, merged into
/// ranges, each with its winner's knobs, and (with --baseline) what changed against the baseline.
dispatch_entry select_table(const item_tools& g, const work_item& item, item_state& st,
                            const std::map<std::string, verification>& verified) {
  std::vector<select::choice> choices;
  std::optional<std::string> previous;
  for (auto& [t, timed] : st.finals_by_count) {
    for (auto& tv : timed)
      tv.qualified =
          verified.count(tv.variant) && verified.at(tv.variant).status == results::status::ok;
    const select::incumbency who{baseline_at(g.request, item, t), previous,
                                 item.family->reference->id};
    if (const auto c = select::choose(t, timed, who, g.request.config.selection)) {
      choices.push_back(*c);
      previous = c->winner;
    }
  }
  results::dispatch_entry d;
  d.family = item.family->space.config.family;
  d.mode = item.mode->name;
  d.shape = item.key_shape;
  d.ranges = select::merge(choices);
  for (select::range& range : d.ranges) range.knobs = variant_by_id(item, range.winner).knobs;
  d.choices = std::move(choices);
  d.baseline = d.summarize_baseline();
  return d;
}

}  // namespace

bool stop_requested() {
  return g_stop_requested != 0;
}
void request_stop() {
  g_stop_requested = 1;
}

record make_record(const work_item& item, const families::shape& s, const space::variant& v) {
  record r;
  r.family = item.family->space.config.family;
  r.mode = item.mode->name;
  r.variant = v.id;
  r.tokens = s.tokens;
  r.shape = item.key_shape;
  r.knobs = v.knobs;
  r.reference = v.is_reference;
  return r;
}

void run_item(const item_tools& g, const work_item& item,
              const std::vector<jit::loaded_kernel>& kernels, results::result_set& out,
              const std::function<void(const std::string&)>& on_count) {
  nvtx::scoped_range item_range(item.key);
  item_state st;
  st.faulty = faults_at(g.request, item.key);
  if (const auto f = st.faulty.find(item.family->reference->id); f != st.faulty.end()) {
    throw error(error_kind::launch, item.key + ": the reference variant " + f->second.variant +
                                        " " + results::to_text(f->second.status) + ": " +
                                        f->second.reason);
  }
  // Measure every count first, choosing optimistically only to protect the likely incumbent
  // from screening; then verify all finalists at once, and select for real over the finals.
  // Which variants a count screens follows from the counts before it, so a resumed sweep derives
  // it as an uninterrupted one does; only the measurements come from the journal.
  const sweep_request& r = g.request;
  for (long long t : r.tokens.empty() ? r.config.tokens : r.tokens) {
    if (stop_requested())
      throw error(error_kind::usage,
                  "interrupted: stopped at " + item.key + " T=" + std::to_string(t));
    const bool full_screen =
        st.last_full == 0 || r.config.screen.carry == 0 ||
        static_cast<double>(t) >= r.config.screen.full_every * static_cast<double>(st.last_full);
    if (full_screen) st.last_full = t;
    const std::string line =
        take_count(g, item, measure_count(g, item, kernels, t, full_screen, st), st, out);
    if (on_count) on_count(line);
  }
  const std::map<std::string, verification> verified = verify_finalists(g, item, st);
  mark_finalists(st, verified, out);
  out.dispatch.push_back(select_table(g, item, st, verified));
}

}  // namespace kk3::sweep
