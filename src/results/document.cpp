#include "results/document.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/dims.hpp"
#include "results/json_fields.hpp"

namespace kk3::results {
namespace {

using json = nlohmann::ordered_json;

result_context read_context(const json_fields& r, const json& doc) {
  result_context c;
  const json& context = r.object(doc, "", "context");
  const std::string at = "/context";
  if (const json* gpu = r.find(context, "gpu"); gpu && !gpu->is_null()) {
    if (!gpu->is_object()) r.fail(at + "/gpu", "expected an object or null");
    const std::string g = at + "/gpu";
    c.gpu_name = r.optional_string(*gpu, g, "name");
    c.gpu_arch = r.optional_string(*gpu, g, "arch");
    c.compute_capability = r.optional_string(*gpu, g, "compute_capability");
    c.driver_version = r.optional_string(*gpu, g, "driver_version");
    c.sm_count = r.optional_integer(*gpu, g, "sm_count");
    c.l2_bytes = r.optional_integer(*gpu, g, "l2_bytes");
    c.sm_clock_mhz = r.optional_number(*gpu, g, "sm_clock_mhz");
    c.memory_clock_mhz = r.optional_number(*gpu, g, "memory_clock_mhz");
  }
  c.nvrtc_version = r.optional_string(context, at, "nvrtc_version");
  c.tool_version = r.optional_string(context, at, "tool_version");
  c.git_revision = r.optional_string(context, at, "git_revision");
  c.utc_time = r.optional_string(context, at, "utc_time");
  if (r.find(context, "argv")) c.argv = r.strings(context, at, "argv");
  if (const json* f = r.find(context, "figures")) {
    if (!f->is_object()) r.fail(at + "/figures", "expected an object");
    c.copy_ceiling_tb_s = r.optional_number(*f, at + "/figures", "copy_ceiling_tb_s");
    c.empty_kernel_us = r.optional_number(*f, at + "/figures", "empty_kernel_us");
  }
  return c;
}

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
void read_measurement(const json_fields& r, const json& m, const std::string& at,
                      result_record& out) {
  out.stats = read_optional_stats(r, m, at);
  if (r.find(m, "samples_us")) out.samples_us = r.numbers(m, at, "samples_us");
  out.bytes_moved = r.optional_number(m, at, "bytes_moved");
  out.achieved_tb_s = r.optional_number(m, at, "achieved_tb_s");
  out.fraction_of_ceiling = r.optional_number(m, at, "fraction_of_ceiling");
}

void read_time(const json_fields& r, const json& doc, result_document& out) {
  const json& subject = r.object(doc, "", "subject");
  result_record base;
  base.family = r.string(subject, "/subject", "family");
  base.mode = r.string(subject, "/subject", "mode");
  base.tokens = r.integer(subject, "/subject", "tokens");
  base.shape = r.shape(subject, "/subject", base.family);

  auto read_entry = [&](const json& e, const std::string& at, result_record rec) {
    if (!e.is_object()) r.fail(at, "expected an object");
    rec.at = at;
    rec.reference = r.optional_boolean(e, at, "reference");
    if (const json* t = r.find(e, "timing")) {
      if (!t->is_object()) r.fail(at + "/timing", "expected an object");
      rec.timing_mode = r.optional_string(*t, at + "/timing", "mode");
      if (const json* o = r.find(*t, "objective")) {
        rec.objective = r.objective(*o, at + "/timing/objective");
      } else {  // before schema 3: the mode and PDL say it
        if (!rec.timing_mode.empty())
          rec.objective = r.objective(rec.timing_mode, at + "/timing/mode");
        if (r.find(*t, "pdl")) rec.objective.pdl = r.optional_boolean(*t, at + "/timing", "pdl");
      }
    }
    r.member(e, at, "statistics");  // a time result is always timed
    r.member(e, at, "samples_us");
    read_measurement(r, e, at, rec);
    return rec;
  };

  if (r.find(doc, "results")) {
    const json& results = r.array(doc, "", "results");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::string at = "/results/" + std::to_string(i);
      if (!results[i].is_object()) r.fail(at, "expected an object");
      result_record rec = base;
      rec.variant = r.string(results[i], at, "variant");
      out.records.push_back(read_entry(results[i], at, std::move(rec)));
    }
  } else {
    // The first layout of `time --json` (one measurement, its variant in the subject).
    if (!r.find(doc, "statistics")) r.fail("/results", "missing");
    result_record rec = base;
    rec.variant = r.string(subject, "/subject", "variant");
    out.records.push_back(read_entry(doc, "", std::move(rec)));
  }
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

result_record read_sweep_record(const json_fields& r, const json& e, const std::string& at) {
  json_fields::entry_head head = r.head(e, at);
  result_record rec;
  rec.at = at;
  rec.family = std::move(head.family);
  rec.mode = std::move(head.mode);
  rec.shape = std::move(head.shape);
  rec.tokens = r.integer(e, at, "tokens");
  rec.variant = r.string(e, at, "variant");
  if (r.find(e, "knobs")) rec.knobs = r.knobs(e, at, "knobs");
  rec.reference = r.optional_boolean(e, at, "reference");
  rec.status = status_at(r, e, at);
  rec.reason = r.optional_string(e, at, "reason");
  if (const json* v = r.find(e, "verification"); v && !v->is_null()) {
    if (!v->is_object()) r.fail(at + "/verification", "expected an object or null");
    rec.verification_status = status_at(r, *v, at + "/verification");
    rec.first_mismatch = r.optional_string(*v, at + "/verification", "first_mismatch");
  }
  read_measurement(r, e, at, rec);
  return rec;
}

void read_sweep(const json_fields& r, const json& doc, result_document& out) {
  if (const json* plan = r.find(doc, "plan")) {
    if (!plan->is_object()) r.fail("/plan", "expected an object");
    if (r.find(*plan, "timed")) out.timed = r.optional_boolean(*plan, "/plan", "timed");
    if (out.context.copy_ceiling_tb_s == 0)
      out.context.copy_ceiling_tb_s = r.optional_number(*plan, "/plan", "copy_ceiling_tb_s");
    result_plan p;
    if (r.find(*plan, "tokens")) {
      const json& tokens = r.array(*plan, "/plan", "tokens");
      for (std::size_t i = 0; i < tokens.size(); ++i)
        p.tokens.push_back(r.integer_value(tokens[i], "/plan/tokens/" + std::to_string(i)));
    }
    for (auto [key, field] : {std::pair{"min_gain", &p.min_gain},
                              {"noise_sigmas", &p.noise_sigmas},
                              {"noise_floor", &p.noise_floor}}) {
      if (r.find(*plan, key)) *field = r.number(*plan, "/plan", key);
    }
    out.plan = std::move(p);
  }
  std::map<std::string, results::objective> objectives;  // by family; before schema 3: graph
  if (const json* families = r.find(doc, "families"); families && families->is_object()) {
    for (const auto& [name, f] : families->items()) {
      if (const json* o = f.is_object() ? r.find(f, "objective") : nullptr)
        objectives[name] = r.objective(*o, "/families/" + name + "/objective");
    }
  }
  const json& records = r.array(doc, "", "records");
  out.records.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    out.records.push_back(read_sweep_record(r, records[i], "/records/" + std::to_string(i)));
    if (const auto o = objectives.find(out.records.back().family); o != objectives.end())
      out.records.back().objective = o->second;
  }
  // An untimed sweep (no GPU) has no dispatch tables (an empty list, or none in older files).
  if (r.find(doc, "dispatch")) {
    const json& dispatch = r.array(doc, "", "dispatch");
    for (std::size_t i = 0; i < dispatch.size(); ++i) {
      out.dispatch.push_back(read_sweep_dispatch(r, dispatch[i], "/dispatch/" + std::to_string(i)));
    }
  }
}

}  // namespace

std::string result_record::key() const {
  return family + "/" + mode + "/T" + std::to_string(tokens) + shape_suffix(shape) + "/" + variant;
}

result_document read_result_document(const std::filesystem::path& file) {
  const std::string bytes = read_file(file);
  const json doc = parse_json_text(file, bytes);
  const json_fields r(file);
  if (!doc.is_object()) r.fail("", "expected a JSON object (a kk3tune result file)");

  result_document out;
  out.file = file;
  out.schema_version = r.schema_version(doc);
  const json* kind = r.find(doc, "kind");
  if (!kind) r.fail("/kind", "missing");
  if (!kind->is_string()) r.fail("/kind", "expected a string");
  out.kind = kind->get<std::string>();
  if (out.kind != "time" && out.kind != "sweep") {
    r.fail("/kind", "unknown kind \"" + out.kind + "\" (expected \"time\" or \"sweep\")");
  }

  out.context = read_context(r, doc);
  if (out.kind == "time") {
    read_time(r, doc, out);
  } else {
    read_sweep(r, doc, out);
  }
  return out;
}

}  // namespace kk3::results
