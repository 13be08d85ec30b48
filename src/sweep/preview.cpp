#include "sweep/preview.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/text.hpp"
#include "jit/batch.hpp"
#include "jit/loaded_kernels.hpp"
#include "results/reader.hpp"
#include "sweep/plan.hpp"

namespace kk3::sweep {
namespace {

/// The plan's measuring cost (plan.hpp: work_item::measure_cost, relative units) over `items`.
double measure_cost(const sweep_plan& plan, const std::vector<std::size_t>& items) {
  double sum = 0;
  for (std::size_t i : items) sum += plan.items[i].measure_cost;
  return sum;
}

/// Seconds per unit of measure_cost on the H200, from a committed sweep of the default plan:
/// its wall time over the cost of that plan (its token counts, today's configs). Sets `source`.
std::optional<double> seconds_per_unit(const sweep_request& r, const std::filesystem::path& file,
                                       std::string& source) {
  std::error_code ec;
  if (file.empty() || !std::filesystem::is_regular_file(file, ec)) {
    source = "no committed H200 sweep to calibrate by (results/h200/ beside the configs)";
    return std::nullopt;
  }
  const results::result_set ref = results::read_result_set(file, results::reading::tables);
  if (!ref.plan || ref.plan->wall_s <= 0 || ref.plan->tokens.empty()) {
    source = file.string() + " records no wall time or token counts to calibrate by";
    return std::nullopt;
  }
  sweep_request whole;
  whole.config = load_sweep_config(r.config_dir / "default.json");
  whole.config.tokens = ref.plan->tokens;
  whole.kernel_dir = r.kernel_dir;
  whole.config_dir = r.config_dir;
  const sweep_plan plan = make_plan(whole);
  std::vector<std::size_t> all(plan.items.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const double units = measure_cost(plan, all);
  if (units <= 0) return std::nullopt;
  source = file.string() + " (" + ref.context.gpu.name + ", " +
           std::to_string(ref.plan->items.size()) + " items in " +
           std::to_string(static_cast<long long>(ref.plan->wall_s)) +
           " s), scaled by the sweep's cost model (variants x token counts x bytes moved)";
  return ref.plan->wall_s / units;
}

/// The compiles' cached seconds and count, per family.
using compile_history = std::map<std::string, std::pair<double, std::size_t>>;

/// Sets `p`'s seconds per compile of each family, where they come from, and the estimate of its
/// uncached compiles. Per family: its cached compiles' mean, else its own measured rate, else all
/// families' cached mean, else the fallback. The families' rates differ fivefold
/// (results/cpu/compile-rates-2026-12-05.txt): one family's figure says little of another's.
void estimate_compiles(const compile_history& history,
                       const std::map<std::string, const families::family*>& impl,
                       plan_preview& p) {
  double all_s = 0;
  std::size_t all_n = 0;
  for (const auto& [family, h] : history) {
    all_s += h.first;
    all_n += h.second;
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> sources;  // text, its families
  auto from = [&](const std::string& family, const std::string& text) {
    auto s = std::find_if(sources.begin(), sources.end(),
                          [&](const auto& x) { return x.first == text; });
    if (s == sources.end()) s = sources.insert(sources.end(), {text, {}});
    s->second.push_back(family);
  };
  std::map<std::string, double> cost;
  for (const preview_mode& m : p.modes) {
    if (cost.count(m.family)) continue;
    const auto h = history.find(m.family);
    const std::optional<families::compile_rate> rate = impl.at(m.family)->default_compile_rate();
    if (h != history.end()) {
      cost[m.family] = h->second.first / static_cast<double>(h->second.second);
      from(m.family, "the compile cache's own history (the time each cached compile took)");
    } else if (rate) {
      cost[m.family] = rate->seconds;
      from(m.family, "the family's own measured rate, with none of its compiles in the cache: " +
                         rate->source);
    } else if (all_n) {
      cost[m.family] = all_s / static_cast<double>(all_n);
      from(m.family,
           "the other families' cached compiles, with none of its own cached and no measured "
           "rate");
    } else {
      cost[m.family] = k_fallback_compile_s;
      from(m.family, "no compile history in the cache and no measured rate: " +
                         format_number(k_fallback_compile_s) +
                         " s, the mean of the default plan's compiles on a 2-core machine, "
                         "results/cpu/compile-rates-2026-12-05.txt");
    }
    p.compile_cost_s.emplace_back(m.family, cost[m.family]);
  }
  for (const auto& [text, names] : sources) {
    if (!p.compile_cost_source.empty()) p.compile_cost_source += "; ";
    p.compile_cost_source += sources.size() == 1 ? text : join(names, ", ") + ": " + text;
  }
  double seconds = 0;
  for (const preview_mode& m : p.modes)
    seconds += static_cast<double>(m.compiles - m.cached) * cost[m.family];
  p.compile_estimate_s = seconds / p.compile_threads;
}

}  // namespace

plan_preview preview_plan(const sweep_request& r, const std::vector<std::string>& archs, bool timed,
                          const std::filesystem::path& reference_sweep) {
  const sweep_plan plan = make_plan(r);
  plan_preview p;
  p.archs = archs;
  p.timed = timed;
  const std::vector<std::size_t> items = shard_items(plan, r.shard, timed);
  p.items = items.size();
  p.plan_items = plan.items.size();
  p.token_counts = r.tokens.empty() ? r.config.tokens.size() : r.tokens.size();
  const auto engine = jit::make_jit_engine(r.kernel_dir, r.cache_dir, r.no_cache);
  p.compile_threads = std::max(1u, std::thread::hardware_concurrency());

  compile_history history;
  std::map<std::string, const families::family*> impl;  // family: its host side
  std::set<const space::mode*> compiled;  // a mode compiles once a run, with its first item
  for (std::size_t i : items) {
    const work_item& item = plan.items[i];
    const std::string& family = item.family->space.config.family;
    auto m = std::find_if(p.modes.begin(), p.modes.end(), [&](const preview_mode& x) {
      return x.family == family && x.mode == item.mode->name;
    });
    if (m == p.modes.end()) {
      p.modes.push_back({family, item.mode->name});
      m = p.modes.end() - 1;
    }
    ++m->items;
    impl[family] = item.family->space.impl;
    // Untimed, a mode compiles with its first item of the plan; timed, with its first of the run.
    if ((!timed && !item.first_of_mode) || !compiled.insert(item.mode).second) continue;
    m->variants = item.family->variants.size();
    m->space = shipped_variants(*item.family);
    for (const std::string& arch : archs) {
      for (const jit::compile_request& q : jit::mode_requests(
               item.family->space.config, *item.mode, item.family->variants, arch, r.kernel_dir)) {
        ++m->compiles;
        if (const auto hit = engine->cached(q)) {
          ++m->cached;
          history[family].first += hit->compile_s;
          ++history[family].second;
        }
      }
    }
    p.compiles += m->compiles;
    p.cached += m->cached;
  }

  for (const family_work& w : plan.families) {
    const std::string subset = subset_text(r, w);
    if (!subset.empty()) p.subsets.push_back(subset);
  }

  estimate_compiles(history, impl, p);

  if (const auto per_unit = seconds_per_unit(r, reference_sweep, p.gpu_estimate_source))
    p.gpu_estimate_s = *per_unit * measure_cost(plan, items);
  return p;
}

}  // namespace kk3::sweep
