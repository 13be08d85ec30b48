#include "compare/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "compare/comparison_parts.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "results/dims.hpp"
#include "select/selection.hpp"

namespace kk3::compare {
namespace {

using detail::entry_of;
using detail::index_by_key;

using results::dispatch_entry;
using results::record;
using results::result_set;
using select::range;

record_id id_of(const results::record& r) {
  return {r.key(), r.family, r.mode, r.variant, r.tokens, r.shape};
}

// Family, mode, model shape, tokens, variant: the order every list is shown in.
bool id_less(const record_id& a, const record_id& b) {
  return std::tie(a.family, a.mode, a.shape_dims, a.tokens, a.variant) <
         std::tie(b.family, b.mode, b.shape_dims, b.tokens, b.variant);
}

file_summary summarize(const results::result_set& d) {
  file_summary s;
  s.file = d.file.string();
  s.kind = d.kind;
  s.gpu_name = d.context.gpu.name;
  s.gpu_arch = d.context.gpu.arch;
  s.tool_version = d.context.tool_version;
  s.git_revision = d.context.git_revision;
  s.utc_time = d.context.utc_time;
  s.records = d.records.size();
  s.timed = d.timed();
  s.copy_ceiling_tb_s = d.context.copy_ceiling_tb_s;
  s.empty_kernel_us = d.context.empty_kernel_us;
  for (const auto& r : d.records) s.timed_records += is_timed(r);
  return s;
}

std::string gpu_words(const file_summary& s) {
  return s.gpu_name.empty() ? "no GPU" : s.gpu_name;
}

void check_comparable(const file_summary& base, const file_summary& next, const compare_options& o,
                      std::vector<std::string>& notes) {
  if (base.kind != next.kind) {
    throw error(error_kind::input, "BASE (" + base.file + ") is a " + base.kind +
                                       " result and NEW (" + next.file + ") a " + next.kind +
                                       " result: compare needs two results of one kind");
  }
  for (const file_summary* s : {&base, &next}) {  // nothing to compare: not "lost", not slower
    if (!s->timed) {
      throw error(error_kind::input,
                  std::string(s == &base ? "BASE" : "NEW") + " (" + s->file +
                      ") is an untimed sweep: compiled only, without a GPU, so it has no timings "
                      "and no dispatch tables to compare; `kk3tune report " +
                      s->file + " --html FILE` shows its compile resources");
    }
  }
  if (base.gpu_name != next.gpu_name) {
    const std::string what = "BASE (" + base.file + ") ran on " + gpu_words(base) + ", NEW (" +
                             next.file + ") on " + gpu_words(next);
    if (!o.allow_device_mismatch) {
      throw error(error_kind::input, what +
                                         ": timings from different GPUs do not compare "
                                         "(--allow-device-mismatch compares them anyway)");
    }
    notes.push_back(what + "; compared anyway (--allow-device-mismatch)");
  }
}

// The machines' figures against each other (machine_check); a note when they differ.
void check_machines(comparison& c) {
  const auto format = format_double;
  machine_check& m = c.machine;
  m.floor = c.shipped_verdict ? c.rule.noise_floor : select::k_default_noise_floor;
  auto change = [&m](double base, double next) -> std::optional<double> {
    if (!(base > 0 && next > 0)) return std::nullopt;
    m.known = true;
    const double x = next / base - 1;
    if (std::abs(x) > m.floor) m.differ = true;
    return x;
  };
  m.empty_kernel_change = change(c.base.empty_kernel_us, c.next.empty_kernel_us);
  m.copy_ceiling_change = change(c.base.copy_ceiling_tb_s, c.next.copy_ceiling_tb_s);
  if (!m.differ) return;
  std::vector<std::string> moved;
  if (m.empty_kernel_change)
    moved.push_back("the empty-kernel launch " + format("%.3f", c.base.empty_kernel_us) + " -> " +
                    format("%.3f", c.next.empty_kernel_us) + " us (" +
                    format("%+.1f", *m.empty_kernel_change * 100) + "%)");
  if (m.copy_ceiling_change)
    moved.push_back("the copy ceiling " + format("%.3f", c.base.copy_ceiling_tb_s) + " -> " +
                    format("%.3f", c.next.copy_ceiling_tb_s) + " TB/s (" +
                    format("%+.1f", *m.copy_ceiling_change * 100) + "%)");
  c.notes.push_back("BASE and NEW were timed on machines that differ: " + join(moved, ", ") +
                    ", beyond the noise floor " + format("%g", m.floor * 100) +
                    "%. Launch-bound counts (small T) move with the machine, so a change there "
                    "is the machine's until both builds are timed on one machine "
                    "(ci/gpu-regression.sh does, with a base build: docs/development.md)");
}

// Statuses that mean the variant failed, or (unlaunchable) cannot run on the GPU at that shape.
bool failed(results::status s) {
  using results::status;
  return s == status::mismatch || s == status::pdl_hazard || s == status::launch_failed ||
         s == status::timeout || s == status::compile_failed || s == status::unlaunchable;
}

// Failures that need no verification to regress: the variant stopped compiling or running.
bool stopped_running(results::status failure) {
  using results::status;
  return failure == status::compile_failed || failure == status::launch_failed ||
         failure == status::timeout || failure == status::unlaunchable;
}

// The failure NEW shows for the record (its status, else its finalist verification), if any.
std::optional<results::status> failure_of(const results::record& r) {
  if (failed(r.status)) return r.status;
  if (r.verified && failed(r.verified->status)) return r.verified->status;
  return std::nullopt;
}

// Whether BASE vouches for the record against NEW's failure: verified ok, or (for a compile or
// launch failure, a timeout or an unlaunchable variant) compiled and ran in BASE. A record
// unlaunchable in both files, or only in NEW, is no regression.
bool fine_before(const results::record& base, results::status new_failure) {
  if (base.status == results::status::ok ||
      (base.verified && base.verified->status == results::status::ok)) {
    return true;
  }
  return stopped_running(new_failure) && is_timed(base) && !failed(base.status);
}

int group_of(const record_comparison& c) {
  if (!c.timing) return 4;
  switch (c.timing->result) {
    case verdict::slower:
      return 0;
    case verdict::faster:
      return 1;
    case verdict::noisy:
      return 2;
    case verdict::same:
      return 3;
  }
  return 4;
}

bool shown_before(const record_comparison& a, const record_comparison& b) {
  const int ga = group_of(a), gb = group_of(b);
  if (ga != gb) return ga < gb;
  if (ga <= 2) {
    // Changes equal to 0.01% are equal: the ties then read in a stable order.
    const double ea = std::round(a.timing->effect * 1e4), eb = std::round(b.timing->effect * 1e4);
    const double ka = ga == 0 ? -ea : ga == 1 ? ea : -std::fabs(ea);
    const double kb = ga == 0 ? -eb : ga == 1 ? eb : -std::fabs(eb);
    if (ka != kb) return ka < kb;
  }
  return id_less(a.id, b.id);
}

std::string tokens_text(long long lo, long long hi) {
  return lo == hi ? "T" + std::to_string(lo) : "T" + std::to_string(lo) + "-" + std::to_string(hi);
}

std::string ranges_text(const std::vector<const select::range*>& ranges) {
  if (ranges.empty()) return "(none)";
  std::string out;
  for (const select::range* r : ranges) {
    out += (out.empty() ? "" : "; ") + tokens_text(r->min_tokens, r->max_tokens) + " " + r->winner;
  }
  return out;
}

bool overlaps(const select::range& a, const select::range& b) {
  return a.min_tokens <= b.max_tokens && b.min_tokens <= a.max_tokens;
}

// The ranges of one table that differ between BASE and NEW; true if any does.
bool compare_table(const std::string& entry, const results::dispatch_entry& base,
                   const results::dispatch_entry& next, std::vector<dispatch_change>& out) {
  bool changed = false;
  for (const select::range& r : next.ranges) {
    const bool same =
        std::any_of(base.ranges.begin(), base.ranges.end(), [&](const select::range& b) {
          return b.min_tokens == r.min_tokens && b.max_tokens == r.max_tokens &&
                 b.winner == r.winner;
        });
    if (same) continue;
    changed = true;
    std::vector<const select::range*> before;
    for (const select::range& b : base.ranges) {
      if (overlaps(b, r)) before.push_back(&b);
    }
    out.push_back({entry, tokens_text(r.min_tokens, r.max_tokens), ranges_text(before), r.winner,
                   r.min_tokens});
  }
  for (const select::range& b : base.ranges) {
    const bool covered = std::any_of(next.ranges.begin(), next.ranges.end(),
                                     [&](const select::range& r) { return overlaps(b, r); });
    if (covered) continue;
    changed = true;
    out.push_back({entry, tokens_text(b.min_tokens, b.max_tokens), ranges_text({&b}), "(none)",
                   b.min_tokens});
  }
  return changed;
}

void compare_dispatch(const results::result_set& base, const results::result_set& next,
                      comparison& c) {
  std::map<std::string, std::pair<const results::dispatch_entry*, const results::dispatch_entry*>>
      tables;
  for (const auto& d : base.dispatch) tables[entry_of(d)].first = &d;
  for (const auto& d : next.dispatch) tables[entry_of(d)].second = &d;
  for (const auto& [entry, both] : tables) {
    const auto [b, n] = both;
    auto all = [](const results::dispatch_entry& d) {
      std::vector<const select::range*> ranges;
      for (const auto& r : d.ranges) ranges.push_back(&r);
      return ranges_text(ranges);
    };
    if (b && n) {
      c.counts.dispatch_entries_changed += compare_table(entry, *b, *n, c.dispatch);
    } else {
      ++c.counts.dispatch_entries_changed;
      c.dispatch.push_back(
          {entry, "all", b ? all(*b) : "(no table)", n ? all(*n) : "(no table)", 0});
    }
  }
}

// The counter of one verdict.
std::size_t& count_of(comparison_counts& k, verdict v) {
  switch (v) {
    case verdict::slower:
      return k.slower;
    case verdict::faster:
      return k.faster;
    case verdict::noisy:
      return k.noisy;
    case verdict::same:
      break;
  }
  return k.same;
}

}  // namespace

namespace detail {

std::string entry_of(const results::dispatch_entry& d) {
  const std::string shape = results::shape_text(d.shape);
  return d.family + "/" + d.mode + (shape.empty() ? "" : "/" + shape);
}

// Key -> index of its first record; counts the repeats.
record_index index_by_key(const results::result_set& d, std::size_t& repeats) {
  record_index index;
  index.reserve(d.records.size());
  for (std::size_t i = 0; i < d.records.size(); ++i) {
    if (!index.emplace(d.records[i].key(), i).second) ++repeats;
  }
  return index;
}

}  // namespace detail

const char* to_string(count_verdict v) {
  switch (v) {
    case count_verdict::same:
      return "same";
    case count_verdict::faster:
      return "faster";
    case count_verdict::slower:
      return "slower";
    case count_verdict::lost:
      return "lost";
    case count_verdict::gained:
      return "gained";
    case count_verdict::untimed:
      return "untimed";
  }
  return "?";
}

std::string record_id::shape() const {
  const std::string s = results::shape_text(shape_dims);
  return "T" + std::to_string(tokens) + (s.empty() ? "" : " " + s);
}

int comparison::exit_code() const {
  if (regression()) return k_exit_failure;
  // Two timed sweeps of which no count could be timed against the other (another objective, say)
  // give no verdict: a CI job must not read that as a pass.
  const shipped_counts& k = shipped_totals;
  if (shipped_verdict && base.timed && next.timed && k.compared > 0 && k.untimed == k.compared)
    return k_exit_usage;
  return k_exit_ok;
}

std::string comparison::summary_line() const {
  if (!shipped_verdict)
    return records_line() + ": " + (regression() ? "REGRESSION" : "no regression");
  const shipped_counts& k = shipped_totals;
  auto n = [](std::size_t v) { return std::to_string(v); };
  const std::string outcome = regression() ? "REGRESSION"
                              : exit_code() == k_exit_usage
                                  ? "NO VERDICT (nothing timed comparably)"
                                  : "no regression";
  return n(k.compared) + " token counts in both tables (" + n(k.slower) + " slower, " + n(k.lost) +
         " lost, " + n(k.faster) + " faster, " + n(k.same) + " same, " + n(k.gained) + " gained, " +
         n(k.untimed) + " untimed; " + n(k.winners_changed) + " winner" +
         (k.winners_changed == 1 ? "" : "s") + " changed); " + n(counts.verification_regressions) +
         " verification regression" + (counts.verification_regressions == 1 ? "" : "s") + ": " +
         outcome + (machine.differ ? " (on machines that differ: see the notes)" : "");
}

std::string comparison::records_line() const {
  const comparison_counts& k = counts;
  auto n = [](std::size_t v) { return std::to_string(v); };
  return n(k.matched) + " records in both (" + n(k.slower) + " slower, " + n(k.faster) +
         " faster, " + n(k.noisy) + " noisy, " + n(k.same) + " same, " + n(k.untimed) +
         " not timed in both, " + n(k.not_comparable) + " not comparable); " +
         n(k.verification_regressions) + " verification regression" +
         (k.verification_regressions == 1 ? "" : "s") + "; " + n(k.dispatch_entries_changed) +
         " dispatch table" + (k.dispatch_entries_changed == 1 ? "" : "s") + " changed; " +
         n(k.only_in_base) + " only in BASE, " + n(k.only_in_new) + " only in NEW";
}

namespace {

/// What matching the records noted beyond each pair's verdict.
struct matching_notes {
  std::size_t screened_vs_final = 0, screened_both = 0;
  std::set<std::string> objective_differences;
};

/// The timing side of a matched pair (b in BASE, n in NEW), into rc.
void compare_pair_timing(const results::record& b, const results::record& n,
                         const compare_options& options, record_comparison& rc,
                         matching_notes& notes) {
  if (!is_timed(b) || !is_timed(n)) return;
  const std::vector<std::string> other_objective = results::differences(b.objective, n.objective);
  if (!other_objective.empty()) {
    // Times under different objectives (timing mode, PDL, chain model) measure different things.
    rc.not_comparable = join(other_objective, ", ");
    notes.objective_differences.insert(rc.not_comparable);
    return;
  }
  // A screening measurement (2 samples, short graphs: its median runs high) is not compared with
  // a final-round one: that would flag a variant as slower for how it was measured.
  if ((b.status == results::status::dropped) != (n.status == results::status::dropped)) {
    ++notes.screened_vs_final;
    return;
  }
  rc.timing = compare_timing(b, n, options.timing);
  // Two screening measurements can tell a clearly slower variant apart within one sweep, but not
  // one sweep from another: two default sweeps of one build, minutes apart on the H200, differed
  // by 5-21% on 46 screened records (results/h200/sweep-default-*). Such a difference is shown as
  // noisy, never as a regression or an improvement.
  if (b.status == results::status::dropped && rc.timing->result != verdict::same &&
      rc.timing->result != verdict::noisy) {
    rc.timing->result = verdict::noisy;
    rc.timing->test_note = "screened out in both: too few samples to call";
    ++notes.screened_both;
  }
}

/// The records of BASE and NEW matched by key: each pair's verdict and verification regression,
/// and the records only one file has.
void match_records(const results::result_set& base, const results::result_set& next,
                   const compare_options& options, comparison& c, matching_notes& notes) {
  std::size_t base_repeats = 0, next_repeats = 0;
  const auto base_index = index_by_key(base, base_repeats);
  const auto next_index = index_by_key(next, next_repeats);
  if (base_repeats)
    c.notes.push_back("BASE repeats " + std::to_string(base_repeats) +
                      " record key(s); only the first of each is compared");
  if (next_repeats)
    c.notes.push_back("NEW repeats " + std::to_string(next_repeats) +
                      " record key(s); only the first of each is compared");
  for (const auto& [key, i] : base_index) {
    const results::record& b = base.records[i];
    const auto found = next_index.find(key);
    if (found == next_index.end()) {
      c.only_in_base.push_back({id_of(b), b.status});
      continue;
    }
    const results::record& n = next.records[found->second];
    record_comparison rc{id_of(b), b.status, n.status, std::nullopt, {}};
    compare_pair_timing(b, n, options, rc, notes);
    if (const auto failure = failure_of(n); failure && fine_before(b, *failure)) {
      const results::status base_status =
          b.status == results::status::ok || !b.verified ? b.status : b.verified->status;
      const std::string mismatch = n.verified ? n.verified->first_mismatch : std::string();
      c.verification.push_back(
          {rc.id, base_status, *failure, mismatch.empty() ? n.reason : mismatch});
    }
    c.records.push_back(std::move(rc));
  }
  for (const auto& [key, i] : next_index) {
    if (!base_index.count(key))
      c.only_in_new.push_back({id_of(next.records[i]), next.records[i].status});
  }
}

/// The notes on the records that matching left without a verdict, or with a noisy one.
void add_record_notes(const matching_notes& notes, comparison& c) {
  for (const std::string& why : notes.objective_differences) {
    c.record_notes.push_back("timed under different objectives (BASE vs NEW: " + why +
                             "): those records are not comparable and get no verdict; tables "
                             "selected under them may differ for that reason alone");
  }
  // Screening rounds time short graphs (2 samples): their medians run higher than the final
  // round's, and their spread is too wide to call a difference.
  const std::pair<std::size_t, const char*> counted[] = {
      {notes.screened_vs_final,
       " matched record(s) were screened out (2 samples, short graphs) in one file and timed in "
       "the final round in the other: not like for like, so counted as not timed in both"},
      {notes.screened_both,
       " record(s) screened out in both files differ by more than the threshold: screening rounds "
       "(2 samples, short graphs) cannot call that, so they count as noisy"}};
  for (const auto& [count, text] : counted) {
    if (count) c.record_notes.push_back(std::to_string(count) + text);
  }
}

/// The lists in the order they are shown, and their counts.
void sort_and_count(comparison& c) {
  std::sort(c.records.begin(), c.records.end(), shown_before);
  auto by_id = [](const auto& a, const auto& b) { return id_less(a.id, b.id); };
  std::sort(c.verification.begin(), c.verification.end(), by_id);
  std::sort(c.dispatch.begin(), c.dispatch.end(),
            [](const dispatch_change& a, const dispatch_change& b) {
              return std::tie(a.entry, a.first_token) < std::tie(b.entry, b.first_token);
            });
  std::sort(c.only_in_base.begin(), c.only_in_base.end(), by_id);
  std::sort(c.only_in_new.begin(), c.only_in_new.end(), by_id);

  comparison_counts& k = c.counts;
  k.matched = c.records.size();
  for (const auto& r : c.records) {
    if (!r.not_comparable.empty()) {
      ++k.not_comparable;
      continue;
    }
    if (!r.timing) {
      ++k.untimed;
      continue;
    }
    ++count_of(k, r.timing->result);
  }
  k.verification_regressions = c.verification.size();
  k.only_in_base = c.only_in_base.size();
  k.only_in_new = c.only_in_new.size();
}

}  // namespace

comparison compare_documents(const results::result_set& base, const results::result_set& next,
                             const compare_options& options) {
  comparison c;
  c.options = options;
  c.base = summarize(base);
  c.next = summarize(next);
  check_comparable(c.base, c.next, options, c.notes);
  matching_notes notes;
  match_records(base, next, options, c, notes);
  add_record_notes(notes, c);
  compare_dispatch(base, next, c);
  if (base.kind == "sweep" && next.kind == "sweep") detail::compare_shipped(base, next, c);
  check_machines(c);
  sort_and_count(c);
  return c;
}

}  // namespace kk3::compare
