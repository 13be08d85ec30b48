#include "results/entries.hpp"

#include <optional>
#include <utility>

#include "core/error.hpp"
#include "results/arch_resources.hpp"
#include "results/codec.hpp"

namespace kk3::results {
namespace {

using json = nlohmann::ordered_json;

sample_stats read_stats(const json_fields& r, const json& s, const std::string& at) {
  sample_stats out;
  out.samples = static_cast<std::size_t>(r.integer(s, at, "samples"));  // lenient: rounded
  out.min = r.number(s, at, "min_us");
  out.median = r.number(s, at, "median_us");
  out.mean = r.number(s, at, "mean_us");
  out.p10 = r.number(s, at, "p10_us");
  out.p90 = r.number(s, at, "p90_us");
  out.max = r.number(s, at, "max_us");
  out.stdev = r.number(s, at, "stdev_us");
  out.iqr = r.number(s, at, "iqr_us");
  out.rel_stderr_median = r.number(s, at, "rel_stderr_median");
  return out;
}

// "statistics": an object, or null for a record that was not timed.
std::optional<sample_stats> read_optional_stats(const json_fields& r, const json& parent,
                                                const std::string& at) {
  const json* s = r.find(parent, "statistics");
  if (!s || s->is_null()) return std::nullopt;
  if (!s->is_object()) r.fail(at + "/statistics", "expected an object or null");
  return read_stats(r, *s, at + "/statistics");
}

// What a time entry and a sweep record share: the timing and the traffic.
void read_measurement(const json_fields& r, const json& m, const std::string& at, record& out) {
  out.stats = read_optional_stats(r, m, at);
  if (r.find(m, "samples_us")) out.samples_us = r.numbers(m, at, "samples_us");
  out.bytes_moved = r.optional_number(m, at, "bytes_moved");
  out.achieved_tb_s = r.optional_number(m, at, "achieved_tb_s");
  out.fraction_of_ceiling = r.optional_number(m, at, "fraction_of_ceiling");
}

record read_time_entry(const json_fields& r, const json& e, const std::string& at, record rec) {
  if (!e.is_object()) r.fail(at, "expected an object");
  rec.at = at;
  rec.reference = r.optional_boolean(e, at, "reference");
  if (const json* t = r.find(e, "timing")) {
    if (!t->is_object()) r.fail(at + "/timing", "expected an object");
    rec.timing_mode = r.optional_string(*t, at + "/timing", "mode");
    if (r.find(*t, "pdl")) rec.pdl = r.optional_boolean(*t, at + "/timing", "pdl");
    rec.launches_per_sample = r.optional_number(*t, at + "/timing", "launches_per_sample");
    rec.stopped = r.optional_string(*t, at + "/timing", "stopped");
    if (const json* o = r.find(*t, "objective")) {
      rec.objective = r.objective(*o, at + "/timing/objective");
    } else {  // before schema 3: the mode and PDL say it
      if (!rec.timing_mode.empty())
        rec.objective = r.objective(rec.timing_mode, at + "/timing/mode");
      if (rec.pdl) rec.objective.pdl = *rec.pdl;
    }
  }
  r.member(e, at, "statistics");  // a time result is always timed
  r.member(e, at, "samples_us");
  read_measurement(r, e, at, rec);
  return rec;
}

// The status of the record or verification `e` at `at`.
status status_at(const json_fields& r, const json& e, const std::string& at) {
  const std::string text = r.string(e, at, "status");
  if (text.empty()) r.fail(at + "/status", "expected a status, not \"\"");
  try {
    return status_from_text(text);
  } catch (const error&) {
    r.fail(at + "/status", "unknown status \"" + text + "\"");
  }
}

// Names read only when they are there as a list of strings (a lenient family: compare and
// report do not use them, so a family that says something else is not an error).
std::vector<std::string> strings_if_any(const json_fields& f, const json& parent,
                                        const std::string& at, const char* key) {
  const json* v = f.find(parent, key);
  if (!v || !v->is_array()) return {};
  for (const json& name : *v) {
    if (!name.is_string()) return {};
  }
  return f.strings(parent, at, key);
}

family_summary read_family(const json_fields& f, const std::string& name, const json& family) {
  const std::string at = "/families/" + name;
  family_summary out;
  out.family = name;
  out.knobs = f.strict() ? f.strings(family, at, "knobs") : strings_if_any(f, family, at, "knobs");
  if (f.find(family, "shape_key") && (f.strict() || family.at("shape_key").is_string())) {
    // schema 1: one of "heads" and "blocks"
    out.shape_keys = {f.string(family, at, "shape_key")};
    out.shape_keys_field = "shape_key";
    if (f.strict() && out.shape_keys[0] != "heads" && out.shape_keys[0] != "blocks") {
      f.fail(at + "/shape_key", "expected \"heads\" or \"blocks\"");
    }
  } else {
    out.shape_keys = f.strict() ? f.strings(family, at, "shape_keys")
                                : strings_if_any(f, family, at, "shape_keys");
  }
  if (const json* o = f.find(family, "objective"))
    out.objective = f.objective(*o, at + "/objective");
  // What the sweep wrote of the family's config; no reader uses it but a sweep file written
  // again (merge). Read where it is there, as it is.
  out.entry = f.optional_string(family, at, "entry");
  out.source = f.optional_string(family, at, "source");
  if (const json* ref = f.find(family, "reference"); ref && ref->is_object()) {
    out.reference = f.optional_string(*ref, at + "/reference", "variant");
    if (f.find(*ref, "knobs")) out.reference_knobs = f.knobs(*ref, at + "/reference", "knobs");
  }
  if (const json* modes = f.find(family, "modes"); modes && modes->is_object()) {
    for (const auto& [mode, defines] : modes->items()) {
      const std::string m = at + "/modes/" + json_pointer_token(mode);
      if (!defines.is_object()) f.fail(m, "expected an object of define -> value");
      std::vector<std::pair<std::string, std::string>> d;
      for (const auto& [name, value] : defines.items())  // the sweep writes strings
        d.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
      out.modes.emplace_back(mode, std::move(d));
    }
  }
  return out;
}

select::range read_range(const json_fields& f, const json& r, const std::string& at) {
  if (!r.is_object()) f.fail(at, "expected an object");
  select::range out;
  out.min_tokens = f.integer(r, at, "min_tokens");
  out.max_tokens = f.integer(r, at, "max_tokens");
  out.winner = f.string(r, at, "variant");
  if (f.strict() || f.find(r, "knobs")) out.knobs = f.knobs(r, at, "knobs");
  if (f.strict()) {
    const auto& runner_up = f.member(r, at, "runner_up");
    if (!runner_up.is_string() && !runner_up.is_null())
      f.fail(at + "/runner_up", "expected a string or null");
    out.margin = f.number(r, at, "margin");
  } else {
    out.margin = f.optional_number(r, at, "margin");
  }
  if (std::string runner_up = f.optional_string(r, at, "runner_up"); !runner_up.empty())
    out.runner_up = std::move(runner_up);
  out.incumbent_kept = f.optional_boolean(r, at, "incumbent_kept");
  if (f.find(r, "tokens")) out.tokens = f.integers(r, at, "tokens");
  return out;
}

// A table's "baseline" block (sweep --baseline).
baseline_summary read_baseline(const json_fields& f, const json& b, const std::string& at) {
  if (!b.is_object()) f.fail(at, "expected an object");
  baseline_summary out;
  out.counts = f.integer(b, at, "counts");
  const json& changes = f.array(b, at, "changes");
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::string c = at + "/changes/" + std::to_string(i);
    if (!changes[i].is_object()) f.fail(c, "expected an object");
    const json& e = changes[i];
    out.changes.push_back({f.integer(e, c, "tokens"), f.string(e, c, "from"), f.string(e, c, "to"),
                           f.optional_boolean(e, c, "from_qualified"), f.number(e, c, "gain"),
                           f.number(e, c, "gain_sigmas")});
  }
  return out;
}

/// A record or a dispatch entry with its head read: where it is, its family, mode and shape.
template <class Entry>
Entry headed(const json_fields& f, const json& e, const std::string& at) {
  json_fields::entry_head head = f.head(e, at);
  Entry out;
  out.at = at;
  out.family = std::move(head.family);
  out.mode = std::move(head.mode);
  out.shape = std::move(head.shape);
  return out;
}

}  // namespace

std::vector<record> read_time_entries(const json_fields& r, const json& doc) {
  const json& subject = r.object(doc, "", "subject");
  record base;
  base.family = r.string(subject, "/subject", "family");
  base.mode = r.string(subject, "/subject", "mode");
  base.tokens = r.integer(subject, "/subject", "tokens");
  base.shape = r.shape(subject, "/subject", base.family);
  std::vector<record> out;
  if (r.find(doc, "results")) {
    const json& results = r.array(doc, "", "results");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::string at = "/results/" + std::to_string(i);
      if (!results[i].is_object()) r.fail(at, "expected an object");
      record rec = base;
      rec.variant = r.string(results[i], at, "variant");
      out.push_back(read_time_entry(r, results[i], at, std::move(rec)));
    }
  } else {
    // The first layout of `time --json` (one measurement, its variant in the subject).
    if (!r.find(doc, "statistics")) r.fail("/results", "missing");
    record rec = base;
    rec.variant = r.string(subject, "/subject", "variant");
    out.push_back(read_time_entry(r, doc, "", std::move(rec)));
  }
  return out;
}

record read_record(const json_fields& r, const json& e, const std::string& at) {
  record rec = headed<record>(r, e, at);
  rec.tokens = r.integer(e, at, "tokens");
  rec.variant = r.string(e, at, "variant");
  // Strict (a journal's record, in full): every field the codec writes; lenient: what is there.
  const bool strict = r.strict();
  if (strict || r.find(e, "knobs")) rec.knobs = r.knobs(e, at, "knobs");
  if (strict && !r.member(e, at, "reference").is_boolean())
    r.fail(at + "/reference", "expected true or false");
  rec.reference = r.optional_boolean(e, at, "reference");
  rec.status = status_at(r, e, at);
  rec.reason = strict ? r.string(e, at, "reason") : r.optional_string(e, at, "reason");
  if (const json* n = r.find(e, "rounds"); strict || (n && n->is_number()))
    rec.rounds = static_cast<int>(r.integer(e, at, "rounds"));
  const json* v = strict ? &r.member(e, at, "verification") : r.find(e, "verification");
  if (v && !v->is_null()) {
    if (!v->is_object()) r.fail(at + "/verification", "expected an object or null");
    rec.verified = read_verification(r, *v, at + "/verification", rec.reason);
  }
  if (strict) {
    r.member(e, at, "statistics");
    r.member(e, at, "samples_us");
    r.member(e, at, "bytes_moved");
  }
  read_measurement(r, e, at, rec);
  if (const json* res = r.find(e, "resources"))  // an untimed sweep's compile record
    rec.resources = read_resources(r, *res, at + "/resources");
  if (const json* grids = r.find(e, "grid_ctas"))
    rec.grids = read_grids(r, *grids, at + "/grid_ctas");
  return rec;
}

verification read_verification(const json_fields& r, const json& v, const std::string& at,
                               const std::string& reason) {
  if (!v.is_object()) r.fail(at, "expected an object");
  verification out;
  out.status = status_at(r, v, at);
  out.reason = reason;
  // Strict: every field; lenient: status and first_mismatch, and the rest where well-typed.
  const bool strict = r.strict();
  if (const json* seed = r.find(v, "seed"); strict || (seed && seed->is_number_unsigned())) {
    const json& s = r.member(v, at, "seed");
    if (!s.is_number_unsigned()) r.fail(at + "/seed", "expected an unsigned integer");
    out.seed = s.get<unsigned long long>();
  }
  if (const json* checks = r.find(v, "checks"); strict || (checks && checks->is_number_integer()))
    out.checks = r.integer(v, at, "checks");
  if (const json* shapes = r.find(v, "shapes"); strict || (shapes && shapes->is_array()))
    out.shapes = r.strings(v, at, "shapes");
  if (strict) {
    const json& m = r.member(v, at, "first_mismatch");
    if (!m.is_null() && !m.is_string()) r.fail(at + "/first_mismatch", "expected a string or null");
  }
  out.first_mismatch = r.optional_string(v, at, "first_mismatch");
  return out;
}

std::vector<family_summary> read_families(const json_fields& f, const json& doc) {
  std::vector<family_summary> out;
  const json* families = f.strict() ? &f.object(doc, "", "families") : f.find(doc, "families");
  if (!families || !families->is_object()) return out;
  for (const auto& [name, family] : families->items()) {
    if (!family.is_object()) {
      if (f.strict()) f.fail("/families/" + name, "expected an object");
      continue;
    }
    out.push_back(read_family(f, name, family));
  }
  return out;
}

dispatch_entry read_dispatch(const json_fields& f, const json& d, const std::string& at) {
  dispatch_entry out = headed<dispatch_entry>(f, d, at);
  const auto& ranges = f.array(d, at, "ranges");
  if (f.strict() && ranges.empty()) f.fail(at + "/ranges", "expected at least one range");
  for (std::size_t i = 0; i < ranges.size(); ++i)
    out.ranges.push_back(read_range(f, ranges[i], out.range_at(i)));
  if (const json* b = f.find(d, "baseline")) out.baseline = read_baseline(f, *b, at + "/baseline");
  return out;
}

}  // namespace kk3::results
