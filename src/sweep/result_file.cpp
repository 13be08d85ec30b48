#include "sweep/result_file.hpp"

#include <map>

#include "core/json_parse.hpp"
#include "core/version.hpp"
#include "results/codec.hpp"
#include "results/schema.hpp"
#include "timing/context.hpp"

namespace kk3::sweep {

using results::json;

namespace {

json optional_string(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}

/// A table's part of sweep --baseline: how many counts the baseline held, and every count whose
/// variant changed, with the gain over the baseline's variant measured in this run.
json baseline_json(const dispatch_entry& d) {
  json changes = json::array();
  for (const select::choice* c : d.baseline_changes()) {
    // Against a baseline variant that no longer qualifies here, the gain is over the next
    // incumbent.
    changes.push_back({{"tokens", c->tokens},
                       {"from", *c->baseline},
                       {"to", c->winner},
                       {"from_qualified", c->baseline_qualified},
                       {"gain", c->gain},
                       {"gain_sigmas", c->gain_sigmas}});
  }
  return {{"counts", d.baseline_counts().size()}, {"changes", changes}};
}

}  // namespace

std::string sweep_json(const sweep_result& r) {
  json doc = {{"schema_version", results::k_schema_version}, {"kind", "sweep"}};
  if (r.context) {
    doc["context"] = results::context_json(*r.context);
  } else {
    doc["context"] = {{"gpu", nullptr},
                      {"tool_version", tool_version()},
                      {"git_revision", git_revision()},
                      {"argv", r.argv},
                      {"utc_time", timing::utc_now_iso8601()}};
  }
  json objectives = json::object();  // family -> objective: what merge and compare check
  for (const auto& f : r.families) objectives[f.family] = results::to_json(f.objective);
  doc["plan"] = {
      {"config", r.config.file.string()},
      {"tokens", r.config.tokens},
      {"archs", r.archs},
      {"min_gain", r.config.selection.min_gain},
      {"noise_sigmas", r.config.selection.noise_sigmas},
      {"noise_floor", r.config.selection.noise_floor},
      {"timed", r.timed},
      {"copy_ceiling_tb_s", r.ceiling_tb_s},
      {"compiles", r.compiles},
      {"compile_failures", r.compile_failures},
      {"wall_s", r.wall_s},
      {"digest", r.plan_digest},
      {"objective", objectives},
      {"baseline", r.baseline ? json{{"file", r.baseline->first}, {"digest", r.baseline->second}}
                              : json(nullptr)},
      {"items", r.items},
      {"shard",
       r.shard.whole()
           ? json(nullptr)
           : json{{"index", r.shard.index}, {"count", r.shard.count}, {"items", r.shard_items}}}};
  json families = json::object();
  for (const auto& f : r.families) {
    json modes = json::object();
    for (const auto& [name, defines] : f.modes) {
      json d = json::object();
      for (const auto& [key, value] : defines) d[key] = value;
      modes[name] = d;
    }
    families[f.family] = {
        {"knobs", f.knobs},
        {"entry", f.entry},
        {"source", f.source},
        {"shape_keys", f.shape_keys},
        {"reference",
         {{"variant", f.reference}, {"knobs", results::knobs_json(f.reference_knobs)}}},
        {"modes", modes},
        {"objective", objectives[f.family]}};
  }
  doc["families"] = families;

  std::map<std::string, std::vector<std::pair<std::string, long long>>>
      knobs_of;  // family/variant -> knobs
  json records = json::array();
  for (const auto& rec : r.records) {
    knobs_of[rec.family + "/" + rec.variant] = rec.knobs;
    records.push_back(
        results::record_json(rec, results::record_precision::rounded, r.ceiling_tb_s));
  }
  doc["records"] = nullptr;  // its place in the key order; filled below

  json dispatch = json::array();
  for (const auto& d : r.dispatch) {
    json ranges = json::array();
    for (const auto& range : d.ranges) {
      ranges.push_back({{"min_tokens", range.min_tokens},
                        {"max_tokens", range.max_tokens},
                        {"variant", range.winner},
                        {"knobs", results::knobs_json(knobs_of[d.family + "/" + range.winner])},
                        {"runner_up", optional_string(range.runner_up)},
                        {"margin", range.margin},
                        {"incumbent_kept", range.incumbent_kept},
                        {"tokens", range.tokens}});
    }
    json entry = {{"family", d.family},
                  {"mode", d.mode},
                  {"shape", results::shape_json(d.shape)},
                  {"ranges", ranges}};
    if (!d.baseline_counts().empty()) entry["baseline"] = baseline_json(d);
    dispatch.push_back(std::move(entry));
  }
  doc["dispatch"] = dispatch;
  doc["records"] = std::move(records);
  return results::sweep_text(doc);
}

}  // namespace kk3::sweep
