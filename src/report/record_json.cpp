#include "report/record_json.hpp"

#include <cmath>

namespace kk3::report {
namespace {

/// x * per_unit rounded, divided back: the nearest double to the short decimal, so it prints short.
double rounded(double x, double per_unit) { return std::round(x * per_unit) / per_unit; }

json stats_json(const timing::sample_stats& st, record_precision p) {
  json j = statistics_json(st);
  if (p == record_precision::full) return j;
  for (auto& [key, value] : j.items()) {
    if (value.is_number_float()) value = rounded(value.get<double>(), key == "rel_stderr_median" ? 1e6 : 1e4);
  }
  return j;
}

timing::sample_stats stats_from(const json& j) {
  timing::sample_stats s;
  s.samples = j.at("samples").get<std::size_t>();
  s.min = j.at("min_us");
  s.median = j.at("median_us");
  s.mean = j.at("mean_us");
  s.p10 = j.at("p10_us");
  s.p90 = j.at("p90_us");
  s.max = j.at("max_us");
  s.stdev = j.at("stdev_us");
  s.iqr = j.at("iqr_us");
  s.rel_stderr_median = j.at("rel_stderr_median");
  return s;
}

}  // namespace

json knobs_json(const std::vector<std::pair<std::string, long long>>& knobs) {
  json k = json::object();
  for (const auto& [name, value] : knobs) k[name] = value;
  return k;
}

double fraction_of_ceiling(double achieved_tb_s, double ceiling_tb_s, record_precision precision) {
  const double fraction = ceiling_tb_s > 0 ? achieved_tb_s / ceiling_tb_s : 0;
  return precision == record_precision::full ? fraction : rounded(fraction, 1e6);
}

json verification_json(const sweep::verification& v) {
  return {{"status", v.status}, {"seed", v.seed}, {"checks", v.checks}, {"shapes", v.shapes},
          {"first_mismatch", v.first_mismatch.empty() ? json(nullptr) : json(v.first_mismatch)}};
}

sweep::verification verification_from_json(const json& j, const std::string& reason) {
  sweep::verification v;
  v.status = j.at("status");
  v.reason = reason;
  v.seed = j.at("seed");
  v.checks = j.at("checks");
  v.shapes = j.at("shapes").get<std::vector<std::string>>();
  if (!j.at("first_mismatch").is_null()) v.first_mismatch = j.at("first_mismatch");
  return v;
}

json record_json(const sweep::record& r, record_precision p, double ceiling_tb_s) {
  json e = {{"family", r.family},   {"mode", r.mode},     {"tokens", r.tokens},          {"shape", shape_json(r.shape)},
            {"variant", r.variant}, {"knobs", knobs_json(r.knobs)}, {"reference", r.reference},
            {"status", r.status},   {"reason", r.reason}, {"rounds", r.rounds}};
  e["verification"] = r.verified ? verification_json(*r.verified) : json(nullptr);
  e["statistics"] = r.stats ? stats_json(*r.stats, p) : json(nullptr);
  json samples = json::array();
  for (double x : r.samples_us) samples.push_back(p == record_precision::full ? x : rounded(x, 1e4));
  e["samples_us"] = samples;
  e["bytes_moved"] = r.bytes_moved;
  const double tb_s = r.stats && r.stats->median > 0 ? r.bytes_moved / (r.stats->median * 1e-6) / 1e12 : 0;
  e["achieved_tb_s"] = p == record_precision::full ? tb_s : rounded(tb_s, 1e6);
  e["fraction_of_ceiling"] = fraction_of_ceiling(tb_s, ceiling_tb_s, p);
  return e;
}

sweep::record record_from_json(const json& j) {
  sweep::record r;
  r.family = j.at("family");
  r.mode = j.at("mode");
  r.variant = j.at("variant");
  r.tokens = j.at("tokens");
  for (const auto& [name, value] : j.at("shape").items()) r.shape.emplace_back(name, value.get<long long>());
  for (const auto& [name, value] : j.at("knobs").items()) r.knobs.emplace_back(name, value.get<long long>());
  r.reference = j.at("reference");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.rounds = j.at("rounds");
  r.samples_us = j.at("samples_us").get<std::vector<double>>();
  r.bytes_moved = j.at("bytes_moved");
  if (!j.at("verification").is_null()) r.verified = verification_from_json(j.at("verification"), r.reason);
  if (!j.at("statistics").is_null()) r.stats = stats_from(j.at("statistics"));
  return r;
}

}  // namespace kk3::report
