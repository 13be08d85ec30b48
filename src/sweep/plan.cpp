#include "sweep/plan.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "families/limits.hpp"
#include "space/selection_filter.hpp"
#include "sweep/journal.hpp"

namespace kk3::sweep {
namespace {

std::string plan_at(const sweep_request& r, const family_plan& p) {
  return r.config.file.string() + ": /families/" + p.family;
}

families::family_space load_space(const sweep_request& r, const family_plan& p) {
  if (r.family_config_file) return families::load_family_space_from(*r.family_config_file);
  const families::family* f = nullptr;
  try {
    f = &families::find_family(p.family);
  } catch (const error& e) {
    throw error(error_kind::config, plan_at(r, p) + ": " + e.what());
  }
  if (f->is_example())
    throw error(error_kind::config, plan_at(r, p) + ": an example family, not swept");
  return families::load_family_space(*f, r.config_dir);
}

/// Whether `name` passes a list that restricts: an empty list passes everything.
bool passes(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

/// The modes the plan names (all when it names none) and --mode lets through; an unknown name in
/// the plan is an error listing the known ones.
void choose_modes(const sweep_request& r, family_work& w) {
  const family_plan& p = *w.plan;
  for (const auto& m : w.space.config.modes) {
    if (passes(p.modes, m.name) && passes(r.mode_filter, m.name)) w.modes.push_back(&m);
  }
  for (const std::string& name : p.modes) {
    if (std::none_of(w.space.config.modes.begin(), w.space.config.modes.end(),
                     [&](const space::mode& m) { return m.name == name; })) {
      std::vector<std::string> known;
      for (const auto& m : w.space.config.modes) known.push_back(m.name);
      throw error(error_kind::config, plan_at(r, p) + "/modes: no mode '" + name +
                                          "' (modes: " + join(known, ", ") + ")");
    }
  }
}

/// The shipped variants the plan names (all when it names none) and --variant lets through, the
/// reference always among them.
void choose_variants(const sweep_request& r, family_work& w) {
  const family_plan& p = *w.plan;
  // --variant: ids, globs and knob filters (space/selection_filter.hpp), over the shipped ones.
  std::set<std::string> selected;
  if (!r.variant_filter.empty()) {
    std::vector<space::variant> shipped;
    for (const auto& v : w.space.variants)
      if (!v.test_only) shipped.push_back(v);
    for (const space::variant* v :
         space::select_variants(shipped, w.space.config, join(r.variant_filter, ",")))
      selected.insert(v->id);
  }
  for (const auto& v : w.space.variants) {
    if (v.test_only) continue;
    if (v.is_reference) w.reference = &v;
    if (v.is_reference ||
        (passes(p.variants, v.id) && (r.variant_filter.empty() || selected.count(v.id))))
      w.variants.push_back(&v);
  }
  // The first id of `ids` that is not among the chosen variants ("reference" always is), or none.
  const auto unknown = [&](const std::vector<std::string>& ids) -> const std::string* {
    for (const std::string& id : ids) {
      if (id != "reference" && std::none_of(w.variants.begin(), w.variants.end(),
                                            [&](const space::variant* v) { return v->id == id; }))
        return &id;
    }
    return nullptr;
  };
  if (const std::string* id = unknown(p.variants)) {
    throw error(error_kind::config, plan_at(r, p) + "/variants: no variant '" + *id + "' in " +
                                        w.space.config.file.string());
  }
  if (!w.reference)
    throw error(error_kind::config,
                w.space.config.file.string() + ": /reference: not among the variants");
}

/// The token counts swept: --tokens, else the plan's.
const std::vector<long long>& swept_tokens(const sweep_request& r) {
  return r.tokens.empty() ? r.config.tokens : r.tokens;
}

/// Every token count the plan (or --tokens) and its verification ask of an item fits the family's
/// buffers (families/limits.hpp); errors name the plan's file and JSON path, or the flag.
void check_token_limits(const sweep_request& r, const work_item& item) {
  const family_plan& p = *item.family->plan;
  const families::family& f = *item.family->space.impl;
  const space::mode& m = *item.mode;
  // The dimensions the plan chose for this item, and where it chose them.
  families::dims given;
  std::string at = "/families/" + p.family;
  for (std::size_t d = 0; d < p.shapes.size(); ++d) {
    const auto& [name, values] = p.shapes[d];
    const long long v = item.shape.at(name);
    given.emplace_back(name, v);
    at = p.shapes_at[d] + "/" +
         std::to_string(std::find(values.begin(), values.end(), v) - values.begin());
  }
  auto check = [&](const std::vector<long long>& counts, const std::string& where) {
    if (counts.empty()) return;
    const long long most = *std::max_element(counts.begin(), counts.end());
    const std::string problem = families::token_limit_problem(f, m, most, given);
    if (!problem.empty()) {
      const auto i = std::max_element(counts.begin(), counts.end()) - counts.begin();
      throw error(error_kind::config,
                  r.config.file.string() + ": " + where + "/" + std::to_string(i) + ": " + problem);
    }
  };
  if (families::max_tokens(f, m, given) < 1) {
    throw error(error_kind::config, r.config.file.string() + ": " + at + ": " +
                                        families::token_limit_problem(f, m, 1, given));
  }
  if (!r.tokens.empty()) {
    families::check_tokens(f, m, *std::max_element(r.tokens.begin(), r.tokens.end()), given,
                           "--tokens", at);
  } else {
    check(r.config.tokens, "/tokens");
  }
  check(r.config.verify_tokens, "/verify/tokens");
}

}  // namespace

std::size_t shipped_variants(const family_work& w) {
  return static_cast<std::size_t>(
      std::count_if(w.space.variants.begin(), w.space.variants.end(),
                    [](const space::variant& v) { return !v.test_only; }));
}

std::string subset_text(const sweep_request& r, const family_work& w) {
  const std::size_t all = shipped_variants(w);
  if (w.variants.size() >= all) return "";
  std::string why;
  if (w.plan && !w.plan->variants.empty()) {
    why = "the plan's `variants` list (the reference with it)";
    if (!w.plan->variants_note.empty()) why += "; why: " + w.plan->variants_note;
  }
  if (!r.variant_filter.empty())
    why += std::string(why.empty() ? "" : ", and ") + "--variant " + join(r.variant_filter, ",");
  return w.space.config.family + ": " + std::to_string(w.variants.size()) + " of " +
         std::to_string(all) + " variants a mode: " + why;
}

namespace {

family_work load_family(const sweep_request& r, const family_plan& p) {
  family_work w;
  w.plan = &p;
  w.space = load_space(r, p);
  choose_modes(r, w);
  choose_variants(r, w);
  w.objective = w.space.impl->default_objective();
  if (p.objective) {
    w.objective = results::objective_from_json(
        *p.objective, w.objective, "/families/" + p.family + "/objective",
        [&](const std::string& at, const std::string& what) {
          throw error(error_kind::config, r.config.file.string() + ": " + at + ": " + what);
        });
  }
  if (!r.timing.empty()) {  // --timing: the plan's objective, timed another way
    w.objective = results::objective_from_json(
        results::ordered_json(r.timing), w.objective, "--timing",
        [&](const std::string&, const std::string& what) {
          throw error(error_kind::usage, "--timing " + r.timing + ": " + what);
        });
  }
  for (std::size_t d = 0; d < p.shapes.size(); ++d) {
    const auto& [name, values] = p.shapes[d];
    const std::optional<families::dimension> dim = w.space.impl->find_dimension(name);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string problem = families::given_problem(*w.space.impl, name, values[i]);
      if (problem.empty()) continue;
      // A dimension a plan may not give is the whole list's fault; a value below the least, its
      // own.
      const std::string at = p.shapes_at[d] + (dim && dim->planned ? "/" + std::to_string(i) : "");
      throw error(error_kind::config, r.config.file.string() + ": " + at + ": " + problem);
    }
  }
  return w;
}

/// The items of one family: mode by mode, shape by shape, as the family gives its shapes.
void add_items(const sweep_request& r, const family_work& w, std::vector<work_item>& items) {
  const families::family& f = *w.space.impl;
  for (const space::mode* m : w.modes) {
    bool first = true;
    for (const families::shape& s : f.sweep_shapes(*m, w.plan->shapes)) {
      work_item item;
      item.index = items.size();
      item.family = &w;
      item.mode = m;
      item.shape = s;
      item.key_shape = f.key_of(s);
      item.key = shape_key(w.space.config.family, m->name, item.key_shape);
      item.first_of_mode = first;
      first = false;
      item.compile_cost = item.first_of_mode ? static_cast<double>(w.variants.size()) : 0;
      // A count costs its variants' launches: a fixed part and the bytes they move.
      for (long long t : swept_tokens(r)) {
        families::shape at = s;
        at.tokens = t;
        item.measure_cost +=
            static_cast<double>(w.variants.size()) * (1 + f.bytes_moved(at, *m) / 1e7);
      }
      check_token_limits(r, item);
      items.push_back(std::move(item));
    }
  }
}

}  // namespace

sweep_plan make_plan(const sweep_request& r) {
  sweep_plan plan;
  bool matched = false;  // a family passed --family
  for (const family_plan& p : r.config.families) {
    if (!r.family_filter.empty() && p.family != r.family_filter) continue;
    matched = true;
    family_work w = load_family(r, p);
    if (!w.modes.empty()) plan.families.push_back(std::move(w));  // --mode left it none
  }
  if (!matched)
    throw error(error_kind::usage, "--family: the plan " + r.config.file.string() +
                                       " has no family '" + r.family_filter + "'");
  for (const std::string& m : r.mode_filter) {  // each mode named is swept somewhere (none left:
                                                // the first one named is not)
    const bool somewhere =
        std::any_of(plan.families.begin(), plan.families.end(), [&](const family_work& w) {
          return std::any_of(w.modes.begin(), w.modes.end(),
                             [&](const space::mode* x) { return x->name == m; });
        });
    if (!somewhere) {
      throw error(error_kind::usage,
                  "--mode " + m + ": no family of the plan " + r.config.file.string() + " has it" +
                      (r.family_filter.empty() ? "" : " (with --family " + r.family_filter + ")"));
    }
  }
  for (const family_work& w : plan.families) add_items(r, w, plan.items);
  return plan;
}

results::objective planned_objective(const families::family& f,
                                     const std::filesystem::path& config_dir) {
  const std::filesystem::path file = config_dir / "default.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return f.default_objective();
  const sweep_config plan = load_sweep_config(file);
  for (const family_plan& p : plan.families) {
    if (p.family != f.name() || !p.objective) continue;
    return results::objective_from_json(
        *p.objective, f.default_objective(), "/families/" + p.family + "/objective",
        [&](const std::string& at, const std::string& what) {
          throw error(error_kind::config, file.string() + ": " + at + ": " + what);
        });
  }
  return f.default_objective();
}

std::string plan_digest(const sweep_request& r, bool timed,
                        const std::vector<std::string>& compile_archs) {
  hasher h;
  h.add(read_file(r.config.file))
      .add(r.family_filter)
      .add(timed ? "timed" : "compile " + join(compile_archs, ","));
  h.add("modes " + join(r.mode_filter, ",")).add("variants " + join(r.variant_filter, ","));
  if (!r.timing.empty()) h.add("timing " + r.timing);  // another objective: another sweep
  for (long long t : r.tokens) h.add(std::to_string(t));
  h.add(std::to_string(r.config.selection.min_gain));
  for (const auto& [id, kind] : r.inject) h.add(id).add(std::to_string(kind));
  if (r.baseline) h.add("baseline " + r.baseline->digest);  // selection starts from its choices
  return h.hex();
}

shard_spec parse_shard(const std::string& text) {
  static const std::regex pattern("([0-9]{1,6})/([0-9]{1,6})");
  std::smatch m;
  shard_spec s;
  if (std::regex_match(text, m, pattern)) {
    s.index = std::stoi(m[1].str());
    s.count = std::stoi(m[2].str());
    if (s.index >= 1 && s.count >= 1 && s.index <= s.count) return s;
  }
  throw error(error_kind::usage, "--shard " + text + ": expected I/N with 1 <= I <= N, e.g. 2/4");
}

std::vector<std::size_t> shard_items(const sweep_plan& plan, const shard_spec& s, bool timed) {
  const std::size_t n = plan.items.size();
  auto cost = [&](std::size_t i) {
    return timed ? plan.items[i].measure_cost : plan.items[i].compile_cost;
  };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  std::vector<double> load(static_cast<std::size_t>(s.count), 0.0);
  std::vector<std::size_t> mine;
  for (std::size_t i : order) {
    const std::size_t to =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    // An item with no cost (a later shape of a compiled mode) still needs a shard: it adds one
    // unit so such items spread too.
    load[to] += std::max(cost(i), 1e-9);
    if (static_cast<int>(to) + 1 == s.index) mine.push_back(i);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

std::vector<std::string> item_keys(const sweep_plan& plan) {
  std::vector<std::string> keys;
  for (const work_item& i : plan.items) keys.push_back(i.key);
  return keys;
}

}  // namespace kk3::sweep
