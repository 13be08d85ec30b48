#include "compare/comparison_json.hpp"

#include <nlohmann/json.hpp>

#include "core/json_parse.hpp"
#include "results/codec.hpp"
#include "results/schema.hpp"

namespace kk3::compare {
namespace {

using json = nlohmann::ordered_json;

json file_json(const compare::file_summary& s) {
  return {
      {"file", s.file},
      {"kind", s.kind},
      {"gpu", s.gpu_name.empty() ? json(nullptr) : json(s.gpu_name)},
      {"arch", s.gpu_arch},
      {"tool_version", s.tool_version},
      {"git_revision", s.git_revision},
      {"utc_time", s.utc_time},
      {"timed", s.timed},
      {"records", s.records},
      {"timed_records", s.timed_records},
      {"figures",
       {{"copy_ceiling_tb_s", s.copy_ceiling_tb_s > 0 ? json(s.copy_ceiling_tb_s) : json(nullptr)},
        {"empty_kernel_us", s.empty_kernel_us > 0 ? json(s.empty_kernel_us) : json(nullptr)}}}};
}

json optional_json(const std::optional<double>& x) {
  return x ? json(*x) : json(nullptr);
}

json id_json(const compare::record_id& id) {
  return {{"family", id.family},
          {"mode", id.mode},
          {"tokens", id.tokens},
          {"shape", results::shape_json(id.shape_dims)},
          {"variant", id.variant}};
}

json record_json(const compare::record_comparison& r) {
  json e = id_json(r.id);
  e["base_status"] = results::to_text(r.base_status);
  e["new_status"] = results::to_text(r.new_status);
  if (!r.not_comparable.empty()) {
    e["verdict"] = "not_comparable";
    e["why"] = r.not_comparable;
    return e;
  }
  if (!r.timing) {
    e["verdict"] = "untimed";
    return e;
  }
  const compare::timing_comparison& t = *r.timing;
  e["verdict"] = compare::to_string(t.result);
  e["base_median_us"] = t.base_median_us;
  e["new_median_us"] = t.new_median_us;
  e["effect"] = t.effect;
  e["test"] = t.test == compare::test_kind::mann_whitney ? "mann_whitney" : "intervals";
  e["p_value"] = t.p_value;
  e["significant"] = t.significant;
  e["test_note"] = t.test_note;
  return e;
}

json verification_json(const comparison& c) {
  json verification = json::array();
  for (const auto& v : c.verification) {
    json e = id_json(v.id);
    e["base_status"] = results::to_text(v.base_status);
    e["new_status"] = results::to_text(v.new_status);
    e["detail"] = v.detail;
    verification.push_back(std::move(e));
  }
  return verification;
}

json dispatch_json(const comparison& c) {
  json dispatch = json::array();
  for (const auto& d : c.dispatch) {
    dispatch.push_back(
        {{"table", d.entry}, {"tokens", d.tokens}, {"base", d.base}, {"new", d.next}});
  }
  return dispatch;
}

/// The "shipped" block: the rule, the totals and each count's verdict; null when the comparison
/// is not of two sweeps.
json shipped_json(const comparison& c) {
  if (!c.shipped_verdict) return json(nullptr);
  json shipped = json::array();
  for (const auto& x : c.shipped) {
    shipped.push_back(
        {{"table", x.table},
         {"family", x.family},
         {"mode", x.mode},
         {"shape", results::shape_json(x.shape)},
         {"tokens", x.tokens},
         {"verdict", compare::to_string(x.result)},
         {"base_winner", x.base_winner.empty() ? json(nullptr) : json(x.base_winner)},
         {"new_winner", x.new_winner.empty() ? json(nullptr) : json(x.new_winner)},
         {"winner_changed", x.winner_changed()},
         {"base_median_us", x.base_median_us > 0 ? json(x.base_median_us) : json(nullptr)},
         {"new_median_us", x.new_median_us > 0 ? json(x.new_median_us) : json(nullptr)},
         {"effect", x.base_median_us > 0 && x.new_median_us > 0 ? json(x.effect) : json(nullptr)},
         {"sigmas", x.base_median_us > 0 && x.new_median_us > 0 ? json(x.sigmas) : json(nullptr)}});
  }
  const compare::shipped_counts& sk = c.shipped_totals;
  return json{{"rule",
               {{"threshold", c.rule.threshold},
                {"noise_sigmas", c.rule.noise_sigmas},
                {"noise_floor", c.rule.noise_floor}}},
              {"counts",
               {{"compared", sk.compared},
                {"slower", sk.slower},
                {"lost", sk.lost},
                {"faster", sk.faster},
                {"same", sk.same},
                {"gained", sk.gained},
                {"untimed", sk.untimed},
                {"winners_changed", sk.winners_changed},
                {"only_in_base", sk.only_in_base},
                {"only_in_new", sk.only_in_new}}},
              {"counts_by_token", shipped}};
}

json one_sided_json(const std::vector<compare::one_sided_record>& list) {
  json out = json::array();
  for (const auto& r : list) {
    json e = id_json(r.id);
    e["status"] = results::to_text(r.status);
    out.push_back(std::move(e));
  }
  return out;
}

json counts_json(const compare::comparison_counts& k) {
  return {{"matched", k.matched},
          {"slower", k.slower},
          {"faster", k.faster},
          {"noisy", k.noisy},
          {"same", k.same},
          {"untimed", k.untimed},
          {"not_comparable", k.not_comparable},
          {"verification_regressions", k.verification_regressions},
          {"dispatch_tables_changed", k.dispatch_entries_changed},
          {"only_in_base", k.only_in_base},
          {"only_in_new", k.only_in_new}};
}

}  // namespace

std::string comparison_json(const comparison& c) {
  json records = json::array();
  for (const auto& r : c.records) records.push_back(record_json(r));
  std::vector<std::string> notes = c.notes;
  notes.insert(notes.end(), c.record_notes.begin(), c.record_notes.end());
  const json doc = {{"schema_version", results::k_schema_version},
                    {"kind", "comparison"},
                    {"base", file_json(c.base)},
                    {"new", file_json(c.next)},
                    {"threshold", c.options.timing.threshold},
                    {"alpha", c.options.timing.alpha},
                    {"allow_device_mismatch", c.options.allow_device_mismatch},
                    {"regression", c.regression()},
                    {"exit_code", c.exit_code()},
                    {"counts", counts_json(c.counts)},
                    {"machines",
                     {{"known", c.machine.known},
                      {"differ", c.machine.differ},
                      {"empty_kernel_change", optional_json(c.machine.empty_kernel_change)},
                      {"copy_ceiling_change", optional_json(c.machine.copy_ceiling_change)},
                      {"noise_floor", c.machine.floor}}},
                    {"verdict_on", c.shipped_verdict ? "shipped" : "records"},
                    {"shipped", shipped_json(c)},
                    {"summary", c.summary_line()},
                    {"verification_regressions", verification_json(c)},
                    {"records", records},
                    {"dispatch_changes", dispatch_json(c)},
                    {"only_in_base", one_sided_json(c.only_in_base)},
                    {"only_in_new", one_sided_json(c.only_in_new)},
                    {"notes", notes}};
  return doc.dump(2) + "\n";
}

}  // namespace kk3::compare
