#include "results/sweep_file.hpp"

#include "core/error.hpp"
#include "results/schema.hpp"

namespace kk3::results {
namespace {

json range_json(const select::range& r) {
  return {{"min_tokens", r.min_tokens},
          {"max_tokens", r.max_tokens},
          {"variant", r.winner},
          {"knobs", knobs_json(r.knobs)},
          {"runner_up", r.runner_up ? json(*r.runner_up) : json(nullptr)},
          {"margin", r.margin},
          {"incumbent_kept", r.incumbent_kept},
          {"tokens", r.tokens}};
}

json baseline_json(const baseline_summary& b) {
  json changes = json::array();
  for (const baseline_change& c : b.changes) {
    changes.push_back({{"tokens", c.tokens},
                       {"from", c.from},
                       {"to", c.to},
                       {"from_qualified", c.from_qualified},
                       {"gain", c.gain},
                       {"gain_sigmas", c.gain_sigmas}});
  }
  return {{"counts", b.counts}, {"changes", changes}};
}

json dispatch_json(const dispatch_entry& d) {
  json ranges = json::array();
  for (const select::range& r : d.ranges) ranges.push_back(range_json(r));
  json entry = {
      {"family", d.family}, {"mode", d.mode}, {"shape", shape_json(d.shape)}, {"ranges", ranges}};
  if (d.baseline) entry["baseline"] = baseline_json(*d.baseline);
  return entry;
}

}  // namespace

json sweep_context_json(const run_context& c) {
  if (!c.gpu.name.empty()) return context_json(c);
  return {{"gpu", nullptr},
          {"tool_version", c.tool_version},
          {"git_revision", c.git_revision},
          {"argv", c.argv},
          {"utc_time", c.utc_time}};
}

json plan_json(const plan_block& p, const std::vector<family_summary>& families) {
  json plan = {{"config", p.config}, {"tokens", p.tokens}, {"archs", p.archs}};
  // Absent in files from before the selection rule was written: stays absent.
  for (auto [key, value] : {std::pair{"min_gain", &p.min_gain},
                            {"noise_sigmas", &p.noise_sigmas},
                            {"noise_floor", &p.noise_floor}}) {
    if (*value) plan[key] = **value;
  }
  plan["timed"] = p.timed;
  plan["copy_ceiling_tb_s"] = p.copy_ceiling_tb_s;
  plan["compiles"] = p.compiles;
  plan["compile_failures"] = p.compile_failures;
  plan["wall_s"] = p.wall_s;
  if (!p.digest.empty()) plan["digest"] = p.digest;  // files from before sharding have none
  plan["objective"] = objectives_json(families);
  plan["baseline"] = p.baseline ? json{{"file", p.baseline->first}, {"digest", p.baseline->second}}
                                : json(nullptr);
  if (!p.digest.empty()) {
    plan["items"] = p.items;
    plan["shard"] =
        p.shard
            ? json{{"index", p.shard->index}, {"count", p.shard->count}, {"items", p.shard->items}}
            : json(nullptr);
  }
  if (!p.timed) {  // what ships, for an untimed sweep's marks (null: no committed tables found)
    plan["shipped"] = p.shipped ? json{{"file", p.shipped->file},
                                       {"digest", p.shipped->digest},
                                       {"gpu", p.shipped->gpu},
                                       {"arch", p.shipped->arch},
                                       {"git_revision", p.shipped->git_revision},
                                       {"timed_archs", p.shipped->timed_archs}}
                                : json(nullptr);
  }
  if (!p.merged_from.empty()) {
    json from = json::array();
    for (const merged_input& m : p.merged_from) {
      from.push_back({{"file", m.file},
                      {"shard", m.shard ? json(*m.shard) : json(nullptr)},
                      {"utc_time", m.utc_time}});
    }
    plan["merged_from"] = std::move(from);
  }
  return plan;
}

json objectives_json(const std::vector<family_summary>& families) {
  json out = json::object();  // family -> objective: what merge and compare check
  for (const family_summary& f : families) out[f.family] = to_json(f.objective);
  return out;
}

json families_json(const std::vector<family_summary>& families) {
  json out = json::object();
  for (const family_summary& f : families) {
    json modes = json::object();
    for (const auto& [name, defines] : f.modes) {
      json d = json::object();
      for (const auto& [key, value] : defines) d[key] = value;
      modes[name] = d;
    }
    out[f.family] = {
        {"knobs", f.knobs},
        {"entry", f.entry},
        {"source", f.source},
        {"shape_keys", f.shape_keys},
        {"reference", {{"variant", f.reference}, {"knobs", knobs_json(f.reference_knobs)}}},
        {"modes", modes},
        {"objective", to_json(f.objective)}};
  }
  return out;
}

std::string sweep_file_text(const result_set& s) {
  if (!s.plan) throw error(error_kind::usage, "sweep_file_text: a sweep without a plan");
  json doc = {{"schema_version", k_schema_version}, {"kind", "sweep"}};
  doc["context"] = sweep_context_json(s.context);
  doc["plan"] = plan_json(*s.plan, s.families);
  doc["families"] = families_json(s.families);
  doc["records"] = nullptr;  // its place in the key order; sweep_text writes the records
  json dispatch = json::array();
  for (const dispatch_entry& d : s.dispatch) dispatch.push_back(dispatch_json(d));
  doc["dispatch"] = std::move(dispatch);
  json records = json::array();
  for (const record& r : s.records) records.push_back(record_json(r, record_precision::rounded));
  doc["records"] = std::move(records);
  return sweep_text(doc);
}

std::string sweep_text(const json& doc) {
  const auto records = doc.find("records");
  if (records == doc.end() || !records->is_array()) {
    throw error(error_kind::usage, "sweep_text: the document has no \"records\" array");
  }
  std::string lines = "[";
  for (std::size_t i = 0; i < records->size(); ++i) {
    lines += (i ? ",\n    " : "\n    ") + (*records)[i].dump();
  }
  lines += records->empty() ? "]" : "\n  ]";
  // The placeholder is searched for with its key at the top level's indent, so a string
  // "@records@" elsewhere (an argv word) is never taken for it.
  const std::string key = "\n  \"records\": ";
  const std::string placeholder = key + "\"@records@\"";
  json shell = doc;
  shell["records"] = "@records@";
  std::string text = shell.dump(2);
  text.replace(text.find(placeholder), placeholder.size(), key + lines);
  return text + "\n";
}

}  // namespace kk3::results
