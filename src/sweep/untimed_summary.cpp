#include "sweep/untimed_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/paths.hpp"

namespace kk3::sweep {
namespace {

constexpr int k_register_limit = 255;
/// The sweep the committed dispatch headers come from (tests/package/committed_headers.sh).
constexpr const char* k_committed_sweep = "results/h200/sweep-v4-2026-12-04/sweep.json.gz";

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
  return text;
}

struct tally {
  std::size_t variants = 0, ok = 0, at_limit = 0, spilling = 0;
  double lowest = 2, highest = -1;
  std::string target;
};

}  // namespace

std::string untimed_summary(const std::vector<results::record>& records,
                            const std::vector<std::string>& archs, const std::filesystem::path& out,
                            const std::filesystem::path& committed) {
  std::map<std::string, tally> per_arch;
  std::vector<std::string> families;
  std::map<std::pair<std::string, std::string>, tally> per_family;
  for (const std::string& arch : archs) per_arch[arch];
  for (const results::record& r : records) {
    if (std::find(families.begin(), families.end(), r.family) == families.end())
      families.push_back(r.family);
    for (const std::string& arch : archs) {
      ++per_arch[arch].variants;
      ++per_family[{r.family, arch}].variants;
    }
    for (const results::arch_resources& a : r.resources) {
      for (tally* t : {&per_arch[a.arch], &per_family[{r.family, a.arch}]}) {
        ++t->ok;
        t->target = a.target;
        t->at_limit += a.registers >= k_register_limit;
        t->spilling += a.spill_store_bytes > 0 || a.spill_load_bytes > 0;
        if (!a.target.empty()) {
          t->lowest = std::min(t->lowest, a.occupancy);
          t->highest = std::max(t->highest, a.occupancy);
        }
      }
    }
  }
  std::string text =
      "\nresources of each variant (registers, spills, shared memory; theoretical "
      "occupancy on the arch's named GPU):\n";
  for (const std::string& arch : archs) {
    const tally& t = per_arch[arch];
    text += "  " + arch + (t.target.empty() ? "" : " (" + t.target + ")") + ": " +
            std::to_string(t.ok) + " compiled, " + std::to_string(t.variants - t.ok) + " failed\n";
  }
  for (const std::string& family : families) {
    for (const std::string& arch : archs) {
      const tally& t = per_family[{family, arch}];
      text += "  " + family + " " + arch + ": " + std::to_string(t.at_limit) + " of " +
              std::to_string(t.variants) + " variants at 255 registers, " +
              std::to_string(t.spilling) + " spill";
      if (t.highest >= 0)
        text += "; occupancy on the " + t.target + " " + percent(t.lowest) + " to " +
                percent(t.highest);
      text += "\n";
    }
  }
  const std::string kk3 = command_path();  // the binary that ran, as the shell can run it again
  std::filesystem::path page = out;
  page.replace_extension(".html");
  text += "\nsee this run's resources, per variant and arch:\n  " + kk3 + " report " +
          out.string() + " --html " + page.string() + "   (or --csv FILE)\n";
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
