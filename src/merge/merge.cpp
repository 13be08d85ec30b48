#include "merge/merge.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/reader.hpp"
#include "results/sweep_file.hpp"

namespace kk3::merge {
namespace {

using json = nlohmann::ordered_json;

std::string shard_label(const shard_input& s) {
  return s.count == 0 ? "unsharded" : std::to_string(s.index) + "/" + std::to_string(s.count);
}

std::string named(const shard_input& s) {
  return s.set.file.string() + " (shard " + shard_label(s) + ")";
}

[[noreturn]] void fail(const shard_input& s, const std::string& at, const std::string& what) {
  throw error(error_kind::input, s.set.file.string() + ": " + at + ": " + what);
}

}  // namespace

shard_input read_shard(const std::filesystem::path& file) {
  shard_input s;
  s.set = results::read_result_set(file, results::reading::whole);
  if (!s.set.plan) fail(s, "/plan", "missing");
  // The fields sharding added; a file without them was written before `sweep --shard` existed
  // and does not say which items it covers.
  const results::plan_block& plan = *s.set.plan;
  for (const auto& [key, absent] :
       {std::pair{"digest", plan.digest.empty()}, {"items", plan.items.empty()}}) {
    if (absent) {
      fail(s, std::string("/plan/") + key,
           "missing: the file was written by a kk3tune without shards (" +
               std::to_string(s.set.schema_version) +
               " is its schema_version); re-run the sweep with this kk3tune to merge it");
    }
  }
  if (plan.shard) {  // the reader checked its indices
    s.index = plan.shard->index;
    s.count = plan.shard->count;
    s.items.assign(plan.shard->items.begin(), plan.shard->items.end());
  } else {
    for (std::size_t i = 0; i < plan.items.size(); ++i) s.items.push_back(i);
  }
  return s;
}

namespace {

// A field two inputs must agree on, and what a difference means.
struct agreed_field {
  const char* pointer;
  const char* conflict;
};

// What of a file two shards must agree on, as the file holds it (the sweep file's writer's
// blocks), so that a difference is named by its JSON path and its two values.
json agreed_part(const results::result_set& s) {
  const results::plan_block& p = *s.plan;
  return {{"context", results::sweep_context_json(s.context)},
          {"plan",
           {{"digest", p.digest},
            {"items", p.items},
            {"objective", results::objectives_json(s.families)},
            {"timed", p.timed},
            {"archs", p.archs}}},
          {"families", results::families_json(s.families)}};
}

// What a file's value of a field prints as in a message; long values (the item list) only
// say that they differ.
std::string value_text(const json& doc, const json::json_pointer& p) {
  if (!doc.contains(p)) return "absent";
  const std::string text = doc.at(p).dump();
  return text.size() <= 80 ? text : "(" + std::to_string(text.size()) + " characters)";
}

// Every field where `b` differs from `a`, as "different builds (/context/git_revision: "x" vs
// "y")".
std::vector<std::string> differences(const shard_input& x, const shard_input& y) {
  const json a = agreed_part(x.set), b = agreed_part(y.set);
  std::vector<agreed_field> fields = {{"/plan/digest", "different plans"},
                                      {"/plan/items", "different plans"},
                                      {"/families", "different plans"},
                                      {"/plan/objective", "different objectives"},
                                      {"/plan/timed", "one timed, one untimed"},
                                      {"/context/tool_version", "different builds"},
                                      {"/context/git_revision", "different builds"},
                                      {"/context/nvrtc_version", "different builds"}};
  if (x.set.timed() == y.set.timed()) {
    if (x.set.timed()) {
      fields.push_back({"/context/gpu/name", "different GPUs"});
      fields.push_back({"/context/gpu/arch", "different GPUs"});
    } else {
      fields.push_back({"/plan/archs", "different GPU architectures compiled for"});
    }
  }
  std::vector<std::string> out;
  for (const agreed_field& field : fields) {
    const json::json_pointer p(field.pointer);
    const bool same = a.contains(p) == b.contains(p) && (!a.contains(p) || a.at(p) == b.at(p));
    if (!same) {
      out.push_back(std::string(field.conflict) + " (" + field.pointer + ": " + value_text(a, p) +
                    " vs " + value_text(b, p) + ")");
    }
  }
  return out;
}

void require_one_run(const std::vector<shard_input>& inputs) {
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::vector<std::string> diff = differences(inputs[0], inputs[i]);
    if (!diff.empty()) {
      throw error(error_kind::input, inputs[0].set.file.string() + " and " +
                                         inputs[i].set.file.string() +
                                         " cannot be merged: " + join(diff, "; "));
    }
  }
}

// The shards of each count N that no input is ("2/3"), for the message about missing items.
std::vector<std::string> missing_shards(const std::vector<shard_input>& inputs) {
  std::map<long long, std::set<long long>> given;
  for (const shard_input& s : inputs) {
    if (s.count > 0) given[s.count].insert(s.index);
  }
  std::vector<std::string> out;
  for (const auto& [count, indices] : given) {
    for (long long i = 1; i <= count; ++i) {
      if (!indices.count(i)) out.push_back(std::to_string(i) + "/" + std::to_string(count));
    }
  }
  return out;
}

// Which input covers each item; refuses an item covered twice or by none.
std::vector<std::size_t> owners(const std::vector<shard_input>& inputs,
                                const std::vector<std::string>& keys) {
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::vector<std::size_t> owner(keys.size(), none);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const std::size_t item : inputs[i].items) {
      if (owner[item] != none) {
        throw error(error_kind::input, "item " + std::to_string(item) + " \"" + keys[item] +
                                           "\" is covered twice: by " + named(inputs[owner[item]]) +
                                           " and by " + named(inputs[i]));
      }
      owner[item] = i;
    }
  }
  std::vector<std::string> missing;
  for (std::size_t item = 0; item < keys.size(); ++item) {
    if (owner[item] == none) missing.push_back("\"" + keys[item] + "\"");
  }
  if (!missing.empty()) {
    const std::vector<std::string> shards = missing_shards(inputs);
    std::vector<std::string> given;
    for (const shard_input& s : inputs) given.push_back(named(s));
    throw error(error_kind::input,
                std::to_string(missing.size()) + " of " + std::to_string(keys.size()) +
                    " items of the plan are covered by no input: " + join(missing, ", ") +
                    " (missing shard" + (shards.size() == 1 ? " " : "s ") +
                    (shards.empty() ? "unknown" : join(shards, ", ")) +
                    "; given: " + join(given, ", ") + ")");
  }
  return owner;
}

// The item index of each record and table of a file. A record with tokens 0 (a compile-only or
// compile_failed record) belongs to the first item of its family and mode.
class item_index {
 public:
  explicit item_index(const std::vector<std::string>& keys) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      m_at[keys[i]] = i;
      const std::string mode =
          keys[i].substr(0, keys[i].find('/', keys[i].find('/') + 1));  // "family/mode"
      m_first_of_mode.emplace(mode, i);                                 // keeps the first
    }
  }
  template <class Entry>
  std::size_t of(const shard_input& s, const Entry& e, long long tokens) const {
    if (tokens == 0) {
      const auto it = m_first_of_mode.find(e.family + "/" + e.mode);
      if (it == m_first_of_mode.end())
        fail(s, e.at, "family " + e.family + " mode " + e.mode + " has no item in /plan/items");
      return it->second;
    }
    const std::string key = results::shape_key(e.family, e.mode, e.shape);
    const auto it = m_at.find(key);
    if (it == m_at.end()) fail(s, e.at, "its item \"" + key + "\" is not in /plan/items");
    return it->second;
  }

 private:
  std::map<std::string, std::size_t> m_at;
  std::map<std::string, std::size_t> m_first_of_mode;
};

// The entries of one list (records, or dispatch tables) of every input, in item order; within
// an item, in the order of its file. `tokens_of` is a record's count (a table's: none, -1).
template <class Entry, class Tokens>
std::vector<Entry> merged_list(std::vector<shard_input>& inputs,
                               const std::vector<std::size_t>& owner, const item_index& index,
                               std::vector<Entry> results::result_set::*list, Tokens tokens_of) {
  std::vector<std::vector<Entry>> per_item(owner.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (Entry& e : inputs[i].set.*list) {
      const std::size_t item = index.of(inputs[i], e, tokens_of(e));
      if (owner[item] != i)
        fail(inputs[i], e.at,
             "belongs to an item this file does not cover (" + shard_label(inputs[i]) + ")");
      per_item[item].push_back(std::move(e));
    }
  }
  std::vector<Entry> out;
  for (std::vector<Entry>& entries : per_item) {
    for (Entry& e : entries) out.push_back(std::move(e));
  }
  return out;
}

// The summed counts, the largest ceiling and wall time, the shards merged; no shard.
results::plan_block merged_plan(const std::vector<shard_input>& inputs) {
  results::plan_block plan = *inputs[0].set.plan;
  plan.compiles = plan.compile_failures = 0;
  plan.merged_from.clear();
  for (const shard_input& s : inputs) {
    const results::plan_block& p = *s.set.plan;
    plan.compiles += p.compiles;
    plan.compile_failures += p.compile_failures;
    plan.copy_ceiling_tb_s = std::max(plan.copy_ceiling_tb_s, p.copy_ceiling_tb_s);
    plan.wall_s = std::max(plan.wall_s, p.wall_s);
    plan.merged_from.push_back(
        {s.set.file.string(),
         s.count == 0 ? std::nullopt : std::optional<std::string>(shard_label(s)),
         s.set.context.utc_time});
  }
  plan.shard.reset();
  return plan;
}

}  // namespace

results::result_set merge_shards(std::vector<shard_input> inputs,
                                 const std::vector<std::string>& argv) {
  if (inputs.empty()) throw error(error_kind::usage, "merge: no input files");
  // The first shard first: its context is the merged file's.
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const shard_input& a, const shard_input& b) { return a.index < b.index; });
  require_one_run(inputs);
  const std::vector<std::string> keys = inputs[0].set.plan->items;
  const std::vector<std::size_t> owner = owners(inputs, keys);
  const item_index index(keys);

  results::plan_block plan = merged_plan(inputs);
  // A shard that measured another copy ceiling: its fractions are taken of the merged one.
  for (shard_input& s : inputs) {
    if (s.set.plan->copy_ceiling_tb_s == plan.copy_ceiling_tb_s) continue;
    for (results::record& r : s.set.records)
      r.fraction_of_ceiling = results::fraction_of_ceiling(r.achieved_tb_s, plan.copy_ceiling_tb_s);
  }
  auto records = merged_list(inputs, owner, index, &results::result_set::records,
                             [](const results::record& r) { return r.tokens; });
  auto dispatch = merged_list(inputs, owner, index, &results::result_set::dispatch,
                              [](const results::dispatch_entry&) { return -1LL; });

  results::result_set out = std::move(inputs[0].set);
  out.context.argv = argv;
  out.plan = std::move(plan);
  out.records = std::move(records);
  out.dispatch = std::move(dispatch);
  return out;
}

}  // namespace kk3::merge
