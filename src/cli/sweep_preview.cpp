// `kk3tune sweep --dry-run`: prints the plan preview (sweep/preview.hpp) as tables.
#include "cli/sweep_preview.hpp"

#include <iostream>

#include "core/text.hpp"
#include "core/text_table.hpp"
#include "sweep/preview.hpp"
#include "sweep/untimed_summary.hpp"

namespace kk3::cli {
namespace {

/// "12 min 3 s", "45 s", "0.4 s".
std::string duration_text(double s) {
  if (s < 10) return format_double("%.1f", s) + " s";
  if (s < 600) return format_double("%.0f", s) + " s";
  return format_double("%.0f", s / 60) + " min";
}

}  // namespace

int print_sweep_preview(const sweep::sweep_request& request, const std::vector<std::string>& archs,
                        bool timed, const std::string& why_untimed) {
  const sweep::plan_preview p =
      sweep::preview_plan(request, archs, timed, sweep::committed_h200_sweep(request.config_dir));
  std::ostream& out = std::cout;
  out << "dry run: nothing is compiled, timed or written\n"
      << "plan " << request.config.file.string() << ": " << p.items << " of " << p.plan_items
      << " work items" << (request.shard.whole() ? "" : " (shard " + request.shard.text() + ")")
      << ", " << p.token_counts << " token counts; compiles for " << join(archs, ", ")
      << (timed ? " (the GPU's)" : " (no GPU: " + why_untimed + "; nothing would be timed)")
      << "\n\n";
  text_table table({"family", "mode", "items", "variants", "of", "compiles", "cached"},
                   {false, false, true, true, true, true, true});
  for (const sweep::preview_mode& m : p.modes) {
    table.add_row({m.family, m.mode, std::to_string(m.items), std::to_string(m.variants),
                   std::to_string(m.space), std::to_string(m.compiles), std::to_string(m.cached)});
  }
  table.print(out);
  if (!p.subsets.empty()) out << "\nswept over part of the space:\n";
  for (const std::string& s : p.subsets) out << "  " << s << "\n";
  out << "\ncompiles: " << p.compiles << ", " << p.cached << " already in the compile cache, "
      << p.compiles - p.cached << " to compile\n"
      << "compile time on this machine: about " << duration_text(p.compile_estimate_s) << " on "
      << p.compile_threads << " threads, at";
  for (const auto& [family, s] : p.compile_cost_s)
    out << " " << family << " " << format_double("%.3f", s) << " s";
  out << " per compile (from " << p.compile_cost_source << ")\n";
  if (p.gpu_estimate_s) {
    out << "GPU time on an H200: about " << duration_text(*p.gpu_estimate_s)
        << (timed ? "" : " (were there a GPU)") << ", from " << p.gpu_estimate_source << "\n";
  } else {
    out << "GPU time: no estimate: " << p.gpu_estimate_source << "\n";
  }
  return 0;
}

}  // namespace kk3::cli
