#include "codegen/dispatch_tables.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "space/variant.hpp"

namespace kk3::codegen {
namespace {

/// The architectures a header has tables for, lowest first (the first is select()'s default).
struct table_arch_def {
  const char* name;
  int sm;
};
constexpr table_arch_def k_table_archs[] = {{"sm_90", 90}, {"sm_100", 100}};

/// What the checks and the model need to know about one family.
struct family_facts {
  const families::family_space* space = nullptr;
  std::vector<families::dimension> shape_keys;      ///< the family's key dimensions
  std::vector<std::string> knob_names;              ///< config order
  std::map<ordered_knobs, std::size_t> variant_at;  ///< shipped variants by their knobs
  std::size_t reference = 0;                        ///< index of the reference variant
};

[[noreturn]] void fail(const results::result_set& s, const std::string& at,
                       const std::string& what) {
  throw error(error_kind::usage, s.file.string() + ": " + at + ": " + what);
}

[[noreturn]] void fail_config(const space::family_config& cfg, const std::string& at,
                              const std::string& what) {
  throw error(error_kind::config, cfg.file.string() + ": " + at + ": " + what);
}

std::string list_text(const std::vector<std::string>& items) {
  return "[" + join(items, ", ") + "]";
}

std::string tuple_id(const ordered_knobs& k) {
  std::vector<std::string> items;
  for (const long long v : k) items.push_back(std::to_string(v));
  return "{" + join(items, ", ") + "}";
}

family_facts facts_of(const families::family_space& space) {
  family_facts ff;
  ff.space = &space;
  // The dimensions the dispatch is keyed on beside the token count, as the family names them.
  ff.shape_keys = space.impl->key_dimensions();
  for (const space::knob& k : space.config.knobs) ff.knob_names.push_back(k.name);
  for (std::size_t i = 0; i < space.variants.size(); ++i) {
    const space::variant& v = space.variants[i];
    if (v.test_only) continue;
    ordered_knobs k;
    for (const auto& kv : v.knobs) k.push_back(kv.second);
    ff.variant_at[k] = i;
    if (v.is_reference) ff.reference = i;
  }
  return ff;
}

// Where a sweep disagrees with the current config (an empty `at`: it agrees).
struct disagreement {
  std::string at;    ///< the JSON path in the sweep
  std::string what;  ///< what disagrees, naming the config file
  explicit operator bool() const { return !at.empty(); }
};

// A range's knobs in config order, into `k`; a disagreement unless they are a shipped variant with
// the id the file gives.
disagreement range_knobs(const select::range& r, const std::string& at, const family_facts& ff,
                         ordered_knobs& k) {
  const space::family_config& cfg = ff.space->config;
  for (const auto& kv : r.knobs) {
    if (std::find(ff.knob_names.begin(), ff.knob_names.end(), kv.first) == ff.knob_names.end()) {
      return {at + "/knobs/" + kv.first,
              "not a knob of " + cfg.file.string() + " " + list_text(ff.knob_names)};
    }
  }
  k.clear();
  for (const std::string& name : ff.knob_names) {
    const auto it = std::find_if(r.knobs.begin(), r.knobs.end(),
                                 [&](const auto& kv) { return kv.first == name; });
    if (it == r.knobs.end())
      return {at + "/knobs",
              "no " + name + " (" + cfg.file.string() + " has " + list_text(ff.knob_names) + ")"};
    k.push_back(it->second);
  }
  const auto v = ff.variant_at.find(k);
  if (v == ff.variant_at.end()) {
    return {at + "/knobs", tuple_id(k) + " is not a variant of " + cfg.file.string() +
                               " (a value outside a knob's list, or a constraint fails)"};
  }
  const std::string& id = ff.space->variants[v->second].id;
  if (r.winner != id)
    return {at + "/variant", "\"" + r.winner + "\" does not match its knobs (" + id + ")"};
  return {};
}

std::vector<std::string> key_names(const family_facts& ff) {
  std::vector<std::string> out;
  for (const families::dimension& k : ff.shape_keys) out.push_back(k.name);
  return out;
}

// A table's model shape in the order of the family's key dimensions (check_file() found each).
std::vector<long long> shape_of(const results::dispatch_entry& d, const family_facts& ff) {
  std::vector<long long> out;
  for (const families::dimension& k : ff.shape_keys)
    out.push_back(families::dim_or(d.shape, k.name, LLONG_MIN));
  return out;
}

// "heads 16": a table's shape for messages.
std::string shape_words(const results::dispatch_entry& d, const family_facts& ff) {
  const std::vector<long long> values = shape_of(d, ff);
  std::vector<std::string> words;
  for (std::size_t i = 0; i < values.size(); ++i)
    words.push_back(ff.shape_keys[i].name + " " + std::to_string(values[i]));
  return join(words, ", ");
}

std::size_t mode_index(const space::family_config& cfg, const std::string& mode) {
  for (std::size_t i = 0; i < cfg.modes.size(); ++i) {
    if (cfg.modes[i].name == mode) return i;
  }
  return cfg.modes.size();
}

// What every input sweep must be, whether its tables are used or not: an architecture emit
// writes tables for, families kk3tune knows, and well-formed tables (one per mode and shape,
// ranges ascending). Nothing here depends on the configs, so an old sweep of a family whose
// config changed since still passes.
void check_file(const results::result_set& s, const std::map<std::string, family_facts>& facts) {
  if (table_arch(s.context.gpu.arch).empty()) {
    fail(s, "/context/gpu/arch",
         "\"" + s.context.gpu.arch +
             "\" has no dispatch tables (emit writes sm_90 and sm_100 tables)");
  }
  std::set<std::string> listed;
  for (const results::family_summary& fam : s.families) {
    listed.insert(fam.family);
    if (facts.count(fam.family)) continue;
    const families::family* f = families::find_registered(fam.family);
    if (f && f->is_example()) continue;  // examples get no header
    std::vector<std::string> known;
    for (const auto& [name, ff] : facts) known.push_back(name);
    fail(s, "/families/" + fam.family, "unknown family (emit writes " + join(known, ", ") + ")");
  }

  std::set<std::tuple<std::string, std::string, std::vector<long long>>> seen;
  for (const results::dispatch_entry& d : s.dispatch) {
    if (!listed.count(d.family))
      fail(s, d.at + "/family", "\"" + d.family + "\" is not in /families");
    const auto it = facts.find(d.family);
    if (it == facts.end()) continue;  // an example family
    const family_facts& ff = it->second;
    for (const families::dimension& k : ff.shape_keys) {
      const long long v = families::dim_or(d.shape, k.name, LLONG_MIN);
      if (v == LLONG_MIN)
        fail(s, d.at + "/shape",
             "no " + k.name + " (the tables of " + d.family + " are keyed on it)");
      if (v < k.least || v > INT_MAX) {
        fail(s, d.at + "/shape/" + k.name,
             std::to_string(v) + " is not a " + k.name + " count (" + std::to_string(k.least) +
                 " to " + std::to_string(INT_MAX) + ")");
      }
    }
    if (!seen.insert({d.family, d.mode, shape_of(d, ff)}).second) {
      fail(s, d.at,
           "a second table for " + d.family + " mode " + d.mode + " " + shape_words(d, ff));
    }
    long long previous = 0;
    for (std::size_t i = 0; i < d.ranges.size(); ++i) {
      const select::range& r = d.ranges[i];
      if (r.min_tokens < 1 || r.max_tokens < r.min_tokens) {
        fail(s, d.range_at(i),
             "expected 1 <= min_tokens <= max_tokens, got " + std::to_string(r.min_tokens) +
                 " and " + std::to_string(r.max_tokens));
      }
      if (r.min_tokens <= previous) {
        fail(s, d.range_at(i) + "/min_tokens",
             "ranges must ascend: " + std::to_string(r.min_tokens) +
                 " is not above the previous range's max_tokens " + std::to_string(previous));
      }
      previous = r.max_tokens;
    }
  }
}

// The first place where a sweep's part for one family disagrees with the family's current
// config: knob names, shape key, a table's mode, a range's knobs or variant id.
disagreement config_disagreement(const results::result_set& s, const family_facts& ff) {
  const space::family_config& cfg = ff.space->config;
  for (const results::family_summary& fam : s.families) {
    if (fam.family != cfg.family) continue;
    const std::string at = "/families/" + fam.family;
    if (fam.knobs != ff.knob_names) {
      return {at + "/knobs", "the knob names " + list_text(fam.knobs) + " do not match " +
                                 cfg.file.string() + " " + list_text(ff.knob_names)};
    }
    if (fam.shape_keys != key_names(ff)) {
      return {
          at + "/" + fam.shape_keys_field,
          list_text(fam.shape_keys) + ": this family is dispatched on " + list_text(key_names(ff))};
    }
  }
  for (const results::dispatch_entry& d : s.dispatch) {
    if (d.family != cfg.family) continue;
    if (mode_index(cfg, d.mode) == cfg.modes.size())
      return {d.at + "/mode", "\"" + d.mode + "\" is not a mode of " + cfg.file.string()};
    ordered_knobs k;
    for (std::size_t i = 0; i < d.ranges.size(); ++i) {
      if (const disagreement m = range_knobs(d.ranges[i], d.range_at(i), ff, k)) return m;
    }
  }
  return {};
}

bool has_tables_for(const results::result_set& s, const std::string& family) {
  return std::any_of(s.dispatch.begin(), s.dispatch.end(),
                     [&](const auto& d) { return d.family == family; });
}

// Everything a header says that does not come from a sweep.
dispatch_model base_model(const family_facts& ff) {
  const space::family_config& cfg = ff.space->config;
  dispatch_model m;
  m.family = cfg.family;
  m.tool_version = tool_version();
  m.source = cfg.source;
  m.entry = cfg.entry;
  m.options = cfg.options;
  m.shape_keys = key_names(ff);
  for (const std::string& k : m.shape_keys) {
    if (is_cpp_keyword(k) || k == "m" || k == "num_tokens" || k == "sm_arch" || k == "k" ||
        k == "kernel" || k == "stream" || k == "args") {
      throw error(error_kind::config, cfg.family + ": its dimension \"" + k +
                                          "\" cannot name a parameter of select() or launch()");
    }
  }
  m.knob_names = ff.knob_names;
  for (const space::knob& k : cfg.knobs) {
    if (is_cpp_keyword(k.name) || k.name == "knobs" || k.name == "as_knobs") {
      fail_config(cfg, "/knobs/" + k.name,
                  "a knob name the dispatch header cannot use as a field name");
    }
    for (std::size_t i = 0; i < k.values.size(); ++i) {
      if (k.values[i] < INT_MIN || k.values[i] > INT_MAX) {
        fail_config(cfg, "/knobs/" + k.name + "/" + std::to_string(i), "does not fit an int");
      }
    }
    if (cfg.entry.find("{" + k.name + "}") == std::string::npos)
      m.macro_knobs.push_back(space::macro_name(cfg, k.name));
  }
  m.macro_prefix = space::macro_prefix(cfg.family);
  m.launch_header = ff.space->impl->launch_header();
  std::set<std::string> identifiers;
  for (const space::mode& mode : cfg.modes) {
    header_mode hm{mode.name, to_identifier(mode.name), {}, {}};
    for (const auto& [name, value] : mode.defines)
      hm.macros.emplace_back(space::macro_name(cfg, name), value);
    if (!m.launch_header.empty()) hm.launch_call = ff.space->impl->launch_call(mode);
    if (!identifiers.insert(hm.identifier).second) {
      fail_config(cfg, "/modes/" + mode.name, "two modes map to the C++ name " + hm.identifier);
    }
    m.modes.push_back(std::move(hm));
  }
  for (const auto& kv : ff.space->variants[ff.reference].knobs) m.reference.push_back(kv.second);
  return m;
}

// One table of a family for one architecture, and the file it comes from.
struct table_source {
  const results::result_set* file = nullptr;
  const results::dispatch_entry* table = nullptr;
};

std::string table_text(const family_facts& ff, const table_arch_def& def,
                       const results::dispatch_entry& d) {
  return ff.space->config.family + " " + def.name + " mode " + d.mode + " " + shape_words(d, ff);
}

// The family's tables for one architecture from all the inputs. A table (mode and shape) given
// by two inputs is refused: which one is meant cannot be guessed (a sweep's shards and the file
// they were merged into give the same tables: pass one or the other).
std::vector<table_source> tables_for(const std::vector<results::result_set>& sweeps,
                                     const std::set<const results::result_set*>& stale,
                                     const family_facts& ff, const table_arch_def& def) {
  std::map<std::pair<std::size_t, std::vector<long long>>, table_source> by_table;
  for (const results::result_set& s : sweeps) {
    if (table_arch(s.context.gpu.arch) != def.name || stale.count(&s)) continue;
    for (const results::dispatch_entry& d : s.dispatch) {
      if (d.family != ff.space->config.family) continue;
      const auto key = std::make_pair(mode_index(ff.space->config, d.mode), shape_of(d, ff));
      const auto [it, fresh] = by_table.emplace(key, table_source{&s, &d});
      if (fresh) continue;
      const table_source& first = it->second;
      throw error(error_kind::usage,
                  "two inputs give the table " + table_text(ff, def, d) + ": " +
                      first.file->file.string() + " (" + first.table->at + ") and " +
                      s.file.string() + " (" + d.at +
                      "); pass only the files whose tables are wanted (a sweep's shards or the "
                      "file merged from them, not both)");
    }
  }
  std::vector<table_source> out;
  for (const auto& kv : by_table) out.push_back(kv.second);
  return out;
}

// What a sweep minimised for `family` (its families entry; a sweep before schema 3: graph mode).
std::string objective_of(const results::result_set& s, const std::string& family) {
  for (const results::family_summary& f : s.families) {
    if (f.family == family) return results::describe(f.objective);
  }
  return results::describe(results::objective{});
}

// plan.digest (the shards of a plan share it); empty in files from before sharding.
std::string plan_digest(const results::result_set& s) {
  return s.plan ? s.plan->digest : std::string();
}
// plan.shard.index; 0 for an unsharded (or merged) file.
long long shard_index(const results::result_set& s) {
  return s.plan && s.plan->shard ? s.plan->shard->index : 0;
}

// The sweeps the tables came from: one per plan for files with a plan digest (the shards of
// a plan and the file merged from them name the same sweep: the first shard's context, as the
// merged file has), one per file for the older ones (the digest of the file's bytes).
std::vector<header_source> sources_of(const std::vector<table_source>& tables) {
  const std::string family = tables.empty() ? std::string() : tables.front().table->family;
  std::map<std::string, const results::result_set*> first_of;  // by digest
  for (const table_source& t : tables) {
    const results::result_set& s = *t.file;
    const std::string plan = plan_digest(s);
    const std::string key = plan.empty() ? "result " + s.digest : "plan " + plan;
    const auto it = first_of.find(key);
    if (it == first_of.end() || std::make_pair(shard_index(s), s.digest) <
                                    std::make_pair(shard_index(*it->second), it->second->digest))
      first_of[key] = &s;
  }
  std::vector<header_source> out;
  for (const auto& [key, s] : first_of) {
    const std::string plan = plan_digest(*s);
    const results::run_context& c = s->context;
    out.push_back({c.gpu.name, c.gpu.arch, c.tool_version, c.git_revision, c.nvrtc_version,
                   c.utc_time, plan.empty() ? "result" : "plan", plan.empty() ? s->digest : plan,
                   objective_of(*s, family)});
  }
  std::sort(out.begin(), out.end(), [](const header_source& x, const header_source& y) {
    return std::tie(x.utc_time, x.digest) < std::tie(y.utc_time, y.digest);
  });
  return out;
}

// The tables of one architecture and their provenance.
header_arch arch_from(const table_arch_def& def, const std::vector<table_source>& tables,
                      const family_facts& ff, std::set<std::size_t>& used) {
  header_arch a;
  a.name = def.name;
  a.sm = def.sm;
  a.tuned = true;
  a.sources = sources_of(tables);
  const space::family_config& cfg = ff.space->config;
  for (const table_source& source : tables) {
    const results::dispatch_entry& d = *source.table;
    header_table t;
    t.mode = mode_index(cfg, d.mode);
    t.shape = shape_of(d, ff);
    for (const select::range& r : d.ranges) {
      header_range hr;
      hr.min_tokens = r.min_tokens;
      hr.max_tokens = r.max_tokens;
      range_knobs(r, {}, ff, hr.knobs);  // config_disagreement() found none
      hr.variant = r.winner;
      used.insert(ff.variant_at.at(hr.knobs));
      t.ranges.push_back(std::move(hr));
    }
    a.tables.push_back(std::move(t));
  }
  std::sort(a.tables.begin(), a.tables.end(), [](const header_table& x, const header_table& y) {
    return std::tie(x.mode, x.shape) < std::tie(y.mode, y.shape);
  });
  return a;
}

// The inputs whose tables of the family do not match its current config (knob names, shape key,
// modes, ranges, variants): a sweep from before the family's config changed. Their tables of
// this family are not used, each with a note naming the file, the JSON path and why; their
// other families' tables are (a sweep of both families, then of one again after its config
// changed, gives a header of each).
std::set<const results::result_set*> stale_inputs(const std::vector<results::result_set>& sweeps,
                                                  const family_facts& ff,
                                                  std::vector<std::string>& notes) {
  std::set<const results::result_set*> stale;
  const std::string& family = ff.space->config.family;
  for (const results::result_set& s : sweeps) {
    if (!has_tables_for(s, family)) continue;
    if (const disagreement bad = config_disagreement(s, ff)) {
      stale.insert(&s);
      notes.push_back("skipped the " + family + " tables of " + s.file.string() + ": " + bad.at +
                      ": " + bad.what + " (sweep " + family + " again with the current config)");
    }
  }
  return stale;
}

// The header model of one family.
dispatch_model family_model(const family_facts& ff, const std::vector<results::result_set>& sweeps,
                            const std::set<const results::result_set*>& stale,
                            std::vector<std::string>& summary) {
  dispatch_model m = base_model(ff);
  std::set<std::size_t> used;
  for (const table_arch_def& def : k_table_archs) {
    const std::vector<table_source> tables = tables_for(sweeps, stale, ff, def);
    if (tables.empty()) {
      header_arch a;
      a.name = def.name;
      a.sm = def.sm;
      m.archs.push_back(std::move(a));
      summary.push_back(std::string(def.name) + ": no sweep, reference fallback");
      continue;
    }
    m.archs.push_back(arch_from(def, tables, ff, used));
    std::set<std::string> files;
    for (const table_source& t : tables) files.insert(t.file->file.string());
    summary.push_back(std::string(def.name) + ": " + std::to_string(tables.size()) +
                      " table(s) from " +
                      join(std::vector<std::string>(files.begin(), files.end()), ", "));
  }
  // The reference first, then the others in the config's enumeration order.
  m.variants.emplace_back(m.reference, ff.space->variants[ff.reference].id);
  for (const std::size_t i : used) {
    if (i == ff.reference) continue;
    ordered_knobs k;
    for (const auto& kv : ff.space->variants[i].knobs) k.push_back(kv.second);
    m.variants.emplace_back(std::move(k), ff.space->variants[i].id);
  }
  return m;
}

}  // namespace

std::string table_arch(const std::string& gpu_arch) {
  if (gpu_arch == "sm_90" || gpu_arch == "sm_90a") return "sm_90";
  if (gpu_arch == "sm_100" || gpu_arch == "sm_100a") return "sm_100";
  return {};
}

std::vector<emitted_header> build_dispatch_headers(
    const std::vector<families::family_space>& spaces,
    const std::vector<results::result_set>& sweeps, std::vector<std::string>& notes) {
  std::map<std::string, family_facts> facts;
  for (const families::family_space& space : spaces) facts[space.config.family] = facts_of(space);
  for (const results::result_set& s : sweeps) check_file(s, facts);
  for (const results::result_set& s : sweeps) {
    const bool any = std::any_of(facts.begin(), facts.end(),
                                 [&](const auto& f) { return has_tables_for(s, f.first); });
    if (!any)
      notes.push_back(s.file.string() + ": no dispatch tables (an untimed sweep?): not used");
  }

  // A file that does not match a config is named before any conflict between files.
  std::map<std::string, std::set<const results::result_set*>> stale;
  for (const families::family_space& space : spaces)
    stale[space.config.family] = stale_inputs(sweeps, facts.at(space.config.family), notes);

  std::vector<emitted_header> out;
  for (const families::family_space& space : spaces) {
    std::vector<std::string> summary;
    const dispatch_model m =
        family_model(facts.at(space.config.family), sweeps, stale.at(space.config.family), summary);
    emitted_header h;
    h.family = m.family;
    h.tabled =
        std::any_of(m.archs.begin(), m.archs.end(), [](const header_arch& a) { return a.tuned; });
    h.relative = std::filesystem::path("kk3tune") / "dispatch" / (m.family + ".h");
    h.text = dispatch_header(m);
    h.summary = join(summary, "; ");
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace kk3::codegen
