#include "sweep/summary.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "results/model.hpp"
#include "results/objective.hpp"

namespace kk3::sweep {

std::string shard_note(const results::result_set& r) {
  if (!r.plan || !r.plan->shard) return "";
  const results::shard_coverage& s = *r.plan->shard;
  return ", shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + ": " +
         std::to_string(s.items.size()) + " of " + std::to_string(r.plan->items.size()) +
         " work items";
}

void print_baseline_changes(std::ostream& out, const results::result_set& r) {
  long long counts = 0;
  std::vector<std::string> lines;
  for (const auto& d : r.dispatch) {
    const std::optional<results::baseline_summary>& b = d.baseline;
    if (!b) continue;
    counts += b->counts;
    for (const results::baseline_change& c : b->changes) {
      const std::string where = d.family + "/" + d.mode +
                                (d.shape.empty() ? "" : " " + results::shape_text(d.shape)) +
                                " T=" + std::to_string(c.tokens);
      lines.push_back(where + ": " + c.from + " -> " + c.to +
                      (c.from_qualified
                           ? " (" + format_double("%.1f", 100 * c.gain) + "% faster, " +
                                 format_double("%.1f", c.gain_sigmas) + " sigma)"
                           : " (the baseline's variant did not qualify here)"));
    }
  }
  if (!counts) return;
  out << "\nagainst the baseline: " << lines.size() << " of " << counts
      << " token counts changed their variant ("
      << format_double("%.1f",
                       100.0 * static_cast<double>(lines.size()) / static_cast<double>(counts))
      << "%)\n";
  for (const std::string& l : lines) out << "  " << l << "\n";
}

void print_summary(std::ostream& out, const results::result_set& r) {
  for (const auto& f : r.families)
    out << "objective " << f.family << ": " << results::describe(f.objective) << "\n";
  // The reference's and each variant's final-round median per family/mode/shape/tokens.
  std::map<std::string, double> median;
  std::map<std::string, std::string> reference_of;
  for (const auto& f : r.families) reference_of[f.family] = f.reference;
  auto key = [](const std::string& fam, const std::string& mode, const results::dims& shape,
                long long t, const std::string& v) {
    return results::count_key(results::shape_key(fam, mode, shape), t) + "/" + v;
  };
  for (const auto& rec : r.records) {
    if (rec.stats && rec.status != results::status::dropped)
      median[key(rec.family, rec.mode, rec.shape, rec.tokens, rec.variant)] = rec.stats->median;
  }
  text_table table(
      {"family", "mode", "shape", "tokens", "winner", "speedup_vs_ref", "runner_up", "margin_%"},
      {false, false, false, false, false, true, false, true});
  for (const auto& d : r.dispatch) {
    for (const auto& range : d.ranges) {
      double log_sum = 0;
      int n = 0;
      for (long long t : range.tokens) {
        const auto w = median.find(key(d.family, d.mode, d.shape, t, range.winner));
        const auto ref = median.find(key(d.family, d.mode, d.shape, t, reference_of[d.family]));
        if (w != median.end() && ref != median.end() && w->second > 0) {
          log_sum += std::log(ref->second / w->second);
          ++n;
        }
      }
      table.add_row({d.family, d.mode, results::shape_text(d.shape),
                     std::to_string(range.min_tokens) + "-" + std::to_string(range.max_tokens),
                     range.winner + (range.incumbent_kept ? " (kept)" : ""),
                     n ? format_double("%.3f", std::exp(log_sum / n)) : "-",
                     range.runner_up.value_or("-"), format_double("%.1f", 100 * range.margin)});
    }
  }
  table.print(out);
  print_baseline_changes(out, r);
}

int report_measured(std::ostream& out, const results::result_set& result,
                    const std::filesystem::path& written) {
  print_summary(out, result);
  std::size_t dropped = 0, unlaunchable = 0, failed = 0;
  for (const auto& rec : result.records) {
    dropped += rec.status == results::status::dropped;
    unlaunchable += rec.status == results::status::unlaunchable;
    failed += rec.status != results::status::dropped &&
              rec.status != results::status::unlaunchable && rec.status != results::status::ok;
  }
  out << "\n"
      << result.records.size() << " records (" << dropped << " screened out, " << unlaunchable
      << " unlaunchable, " << failed << " not ok), " << result.plan->compiles << " compiles ("
      << result.plan->compile_failures << " failed), copy ceiling "
      << format_double("%.3f", result.plan->copy_ceiling_tb_s) << " TB/s, "
      << format_double("%.1f", result.plan->wall_s) << " s on " << result.context.gpu.name
      << shard_note(result) << "; wrote " << written.string() << "\n";
  return failed ? k_exit_failure : k_exit_ok;
}

}  // namespace kk3::sweep
