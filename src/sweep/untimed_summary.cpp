#include "sweep/untimed_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "results/untimed_facts.hpp"

namespace kk3::sweep {
namespace {

/// The sweep the committed dispatch headers come from (tests/package/committed_headers.sh).
constexpr const char* k_committed_sweep = "results/h200/sweep-v5-2026-12-06/sweep.json.gz";

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
  return text;
}

using record_group = std::pair<std::string, std::vector<const results::record*>>;

/// The records of each family, in file order.
std::vector<record_group> by_family(const std::vector<results::record>& records) {
  std::vector<record_group> groups;
  for (const results::record& r : records) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const record_group& g) { return g.first == r.family; });
    if (it == groups.end()) it = groups.insert(groups.end(), {r.family, {}});
    it->second.push_back(&r);
  }
  return groups;
}

/// Per arch, then per family and arch: compiles, the register limit, spills, occupancy, waves.
std::string resources_text(const std::vector<record_group>& families,
                           const std::vector<const results::record*>& all,
                           const std::vector<std::string>& archs) {
  std::string text =
      "\nresources of each variant (registers, spills, shared memory; theoretical "
      "occupancy and waves per SM on the arch's named GPU):\n";
  for (const auto& [arch, t] : results::tally_by_arch(all, archs)) {
    text += "  " + arch + (t.target.empty() ? "" : " (" + t.target + ")") + ": " +
            std::to_string(t.compiled) + " compiled, " + std::to_string(t.failed) + " failed\n";
  }
  for (const auto& [family, records] : families) {
    for (const auto& [arch, t] : results::tally_by_arch(records, archs)) {
      text += "  " + family + " " + arch + ": " + std::to_string(t.at_limit) + " of " +
              std::to_string(t.variants) + " variants at 255 registers, " +
              std::to_string(t.spilling) + " spill";
      if (t.occupancy.any)
        text += "; occupancy on the " + t.target + " " + percent(t.occupancy.least) + " to " +
                percent(t.occupancy.most);
      if (t.waves.any)
        text += "; waves per SM at the plan's token counts " +
                results::span_text(t.waves, results::waves_text);
      text += "\n";
    }
  }
  return text;
}

/// What the committed dispatch tables ship: per family and arch, the archs without a timed
/// sweep, and every shipped variant that spills.
std::string shipped_text(const results::result_set& result,
                         const std::vector<record_group>& families, const std::string& unmarked) {
  const std::vector<std::string>& archs = result.plan->archs;
  const std::optional<results::shipped_tables>& s = result.plan->shipped;
  if (!unmarked.empty()) return "\nwhat ships: not marked: " + unmarked + "\n";
  if (!s) {
    return "\nwhat ships: no committed dispatch tables were found beside the configs (kk3tune's "
           "repository has them, " +
           std::string(k_committed_sweep) + "): which variants ship is not marked\n";
  }
  std::string text = "\nwhat ships: the committed dispatch tables, from " + s->file + " (" +
                     s->gpu + ", " + s->arch + ", git " + s->git_revision + "):\n";
  for (const auto& [family, records] : families) {
    for (const auto& [arch, t] : results::tally_by_arch(records, s->timed_archs)) {
      text += "  " + family + " " + arch + ": " + std::to_string(t.shipped) + " of " +
              std::to_string(t.variants) + " variants chosen, at " + std::to_string(t.ranges) +
              " ranges";
      if (t.shipped_waves.any)
        text += "; waves per SM where chosen " +
                results::span_text(t.shipped_waves, results::waves_text);
      text += "\n";
    }
  }
  for (const std::string& arch : archs) {
    if (std::count(s->timed_archs.begin(), s->timed_archs.end(), arch)) continue;
    text += "  " + arch +
            ": no timed sweep: the committed headers' select() returns the reference variant "
            "there, so its occupancy and waves above are informative only\n";
  }
  const std::vector<results::shipped_spill> spills = results::shipped_spills(result.records);
  for (const results::shipped_spill& x : spills) {
    text += "  warning: " + x.family + " " + x.variant + " spills on " + x.arch +
            (x.target.empty() ? "" : " (" + x.target + ")") + " where it ships: spill stores " +
            results::span_text(x.store_bytes, results::bytes_text) + " bytes, loads " +
            results::span_text(x.load_bytes, results::bytes_text) + " bytes; it ships at " +
            std::to_string(x.ranges.size()) + " ranges: " + join(x.ranges, ", ") + "\n";
  }
  if (spills.empty() && !s->timed_archs.empty()) text += "  no shipped variant spills\n";
  return text;
}

}  // namespace

std::string untimed_summary(const results::result_set& result, const std::filesystem::path& out,
                            const std::filesystem::path& committed, const std::string& unmarked) {
  std::vector<const results::record*> all;
  for (const results::record& r : result.records) all.push_back(&r);
  const std::vector<record_group> families = by_family(result.records);
  std::string text = resources_text(families, all, result.plan->archs);
  text += shipped_text(result, families, unmarked);
  const std::string kk3 = command_path();  // the binary that ran, as the shell can run it again
  std::filesystem::path page = out;
  page.replace_extension(".html");
  text +=
      "\nsee this run's resources per variant and arch, where the committed tables ship each "
      "one, and its grid and waves per SM at each token count:\n  " +
      kk3 + " report " + out.string() + " --html " + page.string() + "   (or --csv FILE)\n";
  text +=
      "what a sweep on a GPU gives (times, bandwidth, the dispatch tables): the committed H200 "
      "sweep\n  " +
      kk3 + " report " +
      (committed.empty() ? std::string(k_committed_sweep) + "  (in kk3tune's repository)"
                         : committed.string()) +
      " --html h200.html\n";
  return text;
}

std::filesystem::path committed_h200_sweep(const std::filesystem::path& config_dir) {
  std::error_code ec;
  const std::filesystem::path file = config_dir.parent_path() / k_committed_sweep;
  if (!std::filesystem::is_regular_file(file, ec)) return {};
  // Relative where it lies under the current folder (a run from the repository), else as found.
  const std::filesystem::path shown = std::filesystem::proximate(file, ec);
  return ec || shown.empty() || *shown.begin() == ".." ? file : shown;
}

}  // namespace kk3::sweep
