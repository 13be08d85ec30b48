#include "report/records_csv.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "results/codec.hpp"
#include "results/objective.hpp"

namespace kk3::report {
namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double x) {  // the shortest text that reads back as the same double
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// Names in first-seen order over the records.
template <class Get>
std::vector<std::string> columns(const results::result_set& doc, Get names_of) {
  std::vector<std::string> out;
  for (const results::record& r : doc.records) {
    for (const std::string& n : names_of(r)) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

/// The resource columns of each arch (results/model.hpp arch_resources).
constexpr const char* k_resource_columns[] = {
    "registers",   "spill_store_bytes", "spill_load_bytes",     "shared_bytes",
    "stack_bytes", "threads_per_cta",   "dynamic_shared_bytes", "cluster_ctas",
    "target",      "ctas_per_sm",       "warps_per_sm",         "occupancy",
    "limiter"};

/// A record's resources for `arch` under k_resource_columns (empty where it has none).
void add_resources(std::vector<std::string>& row, const results::record& r,
                   const std::string& arch) {
  const auto it = std::find_if(r.resources.begin(), r.resources.end(),
                               [&](const results::arch_resources& a) { return a.arch == arch; });
  if (it == r.resources.end()) {
    row.insert(row.end(), std::size(k_resource_columns), "");
    return;
  }
  const results::arch_resources& a = *it;
  auto count = [](long long v) { return v < 0 ? std::string() : std::to_string(v); };
  for (long long v :
       {static_cast<long long>(a.registers), static_cast<long long>(a.spill_store_bytes),
        static_cast<long long>(a.spill_load_bytes), static_cast<long long>(a.shared_bytes),
        static_cast<long long>(a.stack_bytes), static_cast<long long>(a.threads_per_cta),
        a.dynamic_shared_bytes, static_cast<long long>(a.cluster_ctas)})
    row.push_back(count(v));
  const bool target = !a.target.empty();
  row.push_back(a.target);
  row.push_back(target ? std::to_string(a.ctas_per_sm) : "");
  row.push_back(target ? std::to_string(a.warps_per_sm) : "");
  row.push_back(target ? number(a.occupancy) : "");
  row.push_back(a.limiter);
}

}  // namespace

std::string records_csv(const results::result_set& doc) {
  const std::vector<std::string> dims = columns(doc, [](const results::record& r) {
    std::vector<std::string> n;
    for (const auto& [name, value] : r.shape) n.push_back(name);
    return n;
  });
  const std::vector<std::string> knobs = columns(doc, [](const results::record& r) {
    std::vector<std::string> n;
    for (const auto& [name, value] : r.knobs) n.push_back(name);
    return n;
  });
  // An untimed sweep's resources: a group of columns per arch ("sm_90a_registers", ...), only
  // when some record has them (a timed file's columns stay as they are).
  const std::vector<std::string> archs = columns(doc, [](const results::record& r) {
    std::vector<std::string> n;
    for (const results::arch_resources& a : r.resources) n.push_back(a.arch);
    return n;
  });
  std::vector<std::string> header = {"family", "mode"};
  header.insert(header.end(), dims.begin(), dims.end());
  header.insert(header.end(), {"tokens", "variant", "reference"});
  header.insert(header.end(), knobs.begin(), knobs.end());
  for (const char* h :
       {"status", "verification", "median_us", "p10_us", "p90_us", "min_us", "mean_us", "max_us",
        "stdev_us", "rel_stderr_median", "samples", "bytes_moved", "achieved_tb_s",
        "fraction_of_ceiling", "timing", "objective", "reason"}) {
    header.push_back(h);
  }
  for (const std::string& arch : archs) {
    for (const char* h : k_resource_columns) header.push_back(arch + "_" + h);
  }
  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + field(header[i]);
  out += "\n";
  for (const results::record& r : doc.records) {
    std::vector<std::string> row = {r.family, r.mode};
    for (const std::string& d : dims) {
      const auto it =
          std::find_if(r.shape.begin(), r.shape.end(), [&](const auto& p) { return p.first == d; });
      row.push_back(it == r.shape.end() ? "" : std::to_string(it->second));
    }
    row.insert(row.end(), {std::to_string(r.tokens), r.variant, r.reference ? "true" : "false"});
    for (const std::string& k : knobs) {
      const auto it =
          std::find_if(r.knobs.begin(), r.knobs.end(), [&](const auto& p) { return p.first == k; });
      row.push_back(it == r.knobs.end() ? "" : std::to_string(it->second));
    }
    row.push_back(results::to_text(r.status));
    row.push_back(r.verified ? results::to_text(r.verified->status) : "");
    if (r.stats) {
      const results::sample_stats& s = *r.stats;
      for (double x : {s.median, s.p10, s.p90, s.min, s.mean, s.max, s.stdev, s.rel_stderr_median})
        row.push_back(number(x));
      row.push_back(number(s.samples));
    } else {
      row.insert(row.end(), 9, "");
    }
    row.push_back(number(r.bytes_moved));
    // Bandwidth is a timing's: a record never timed (unlaunchable, failed) has none, not 0.
    for (double x : {r.achieved_tb_s, r.fraction_of_ceiling})
      row.push_back(r.stats ? number(x) : "");
    row.push_back(r.timing_mode.empty() ? results::to_string(r.objective.mode) : r.timing_mode);
    row.push_back(results::describe(r.objective));
    row.push_back(r.reason);
    for (const std::string& arch : archs) add_resources(row, r, arch);
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + field(row[i]);
    out += "\n";
  }
  return out;
}

}  // namespace kk3::report
