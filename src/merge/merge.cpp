#include "merge/merge.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/json_parse.hpp"
#include "core/text.hpp"
#include "results/codec.hpp"
#include "results/json_fields.hpp"
#include "results/model.hpp"

namespace kk3::merge {
namespace {

using json = nlohmann::ordered_json;
using results::json_fields;

std::string shard_label(const shard_input& s) {
  return s.count == 0 ? "unsharded" : std::to_string(s.index) + "/" + std::to_string(s.count);
}

std::string named(const shard_input& s) {
  return s.file.string() + " (shard " + shard_label(s) + ")";
}

// The fields sharding added; a file without them was written before `sweep --shard` existed and
// does not say which items it covers.
void require_sharding_fields(const json_fields& f, const json& plan) {
  for (const char* key : {"digest", "items", "shard"}) {
    if (!f.find(plan, key)) {
      f.fail(std::string("/plan/") + key,
             "missing: the file predates sharding (kk3tune before issue 15); re-run the sweep "
             "with this kk3tune to merge it");
    }
  }
  f.string(plan, "/plan", "digest");
  const json& objective =
      f.member(plan, "/plan", "objective");  // schema 3: family -> objective; 2: "graph"
  if (!objective.is_object() && !objective.is_string())
    f.fail("/plan/objective", "expected an object");
  f.strings(plan, "/plan", "items");
}

// plan.shard: null (the file covers every item) or {"index", "count", "items"}.
void read_coverage(const json_fields& f, const json& plan, shard_input& s) {
  const std::size_t n_items = plan.at("items").size();
  const json& shard = plan.at("shard");
  if (shard.is_null()) {
    for (std::size_t i = 0; i < n_items; ++i) s.items.push_back(i);
    return;
  }
  if (!shard.is_object()) f.fail("/plan/shard", "expected null or an object");
  s.index = f.integer(shard, "/plan/shard", "index");
  s.count = f.integer(shard, "/plan/shard", "count");
  if (s.count < 1 || s.index < 1 || s.index > s.count) {
    f.fail("/plan/shard", "expected 1 <= index <= count, got " + shard_label(s));
  }
  const json& items = f.array(shard, "/plan/shard", "items");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "/plan/shard/items/" + std::to_string(i);
    const long long v = f.integer_value(items[i], at);
    if (v < 0 || static_cast<std::size_t>(v) >= n_items)
      f.fail(at, std::to_string(v) + " is not an index into /plan/items (0 to " +
                     std::to_string(n_items - 1) + ")");
    if (!s.items.empty() && static_cast<std::size_t>(v) <= s.items.back())
      f.fail(at, "the indices must ascend");
    s.items.push_back(static_cast<std::size_t>(v));
  }
}

}  // namespace

shard_input read_shard(const std::filesystem::path& file) {
  shard_input s;
  s.file = file;
  s.doc = parse_json_text(file, read_file(file));
  const json_fields f(s.file, /*strict=*/true);
  if (!s.doc.is_object()) f.fail("", "expected a JSON object (a sweep result)");
  const json* kind = f.find(s.doc, "kind");
  if (!kind || *kind != "sweep")
    f.fail("/kind",
           (kind ? kind->dump() : std::string("missing")) + ": merge takes sweep results only");
  f.schema_version(s.doc);
  f.object(s.doc, "", "context");
  f.array(s.doc, "", "records");
  f.array(s.doc, "", "dispatch");
  const json& plan = f.object(s.doc, "", "plan");
  require_sharding_fields(f, plan);
  read_coverage(f, plan, s);
  return s;
}

namespace {

// A field two inputs must agree on, and what a difference means.
struct agreed_field {
  const char* pointer;
  const char* conflict;
};

// What a file's value of a field prints as in a message; long values (the item list) only
// say that they differ.
std::string value_text(const json& doc, const json::json_pointer& p) {
  if (!doc.contains(p)) return "absent";
  const std::string text = doc.at(p).dump();
  return text.size() <= 80 ? text : "(" + std::to_string(text.size()) + " characters)";
}

// Every field where `b` differs from `a`, as "different builds (/context/git_revision: "x" vs
// "y")".
std::vector<std::string> differences(const shard_input& a, const shard_input& b) {
  std::vector<agreed_field> fields = {{"/plan/digest", "different plans"},
                                      {"/plan/items", "different plans"},
                                      {"/families", "different plans"},
                                      {"/plan/objective", "different objectives"},
                                      {"/plan/timed", "one timed, one untimed"},
                                      {"/context/tool_version", "different builds"},
                                      {"/context/git_revision", "different builds"},
                                      {"/context/nvrtc_version", "different builds"}};
  const json::json_pointer timed("/plan/timed");
  const bool same_timing = value_text(a.doc, timed) == value_text(b.doc, timed);
  if (same_timing && a.doc.contains(timed) && a.doc.at(timed) == true) {
    fields.push_back({"/context/gpu/name", "different GPUs"});
    fields.push_back({"/context/gpu/arch", "different GPUs"});
  } else if (same_timing) {
    fields.push_back({"/plan/archs", "different GPU architectures compiled for"});
  }
  std::vector<std::string> out;
  for (const agreed_field& field : fields) {
    const json::json_pointer p(field.pointer);
    const bool same = a.doc.contains(p) == b.doc.contains(p) &&
                      (!a.doc.contains(p) || a.doc.at(p) == b.doc.at(p));
    if (!same) {
      out.push_back(std::string(field.conflict) + " (" + field.pointer + ": " +
                    value_text(a.doc, p) + " vs " + value_text(b.doc, p) + ")");
    }
  }
  return out;
}

void require_one_run(const std::vector<shard_input>& inputs) {
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::vector<std::string> diff = differences(inputs[0], inputs[i]);
    if (!diff.empty()) {
      throw error(error_kind::input, inputs[0].file.string() + " and " + inputs[i].file.string() +
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

// The item index of each entry of a file's "records" or "dispatch" list. A record with tokens 0
// (a compile-only or compile_failed record) belongs to the first item of its family and mode.
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
  std::size_t of(const json_fields& f, const json& e, const std::string& at, bool is_record) const {
    if (!e.is_object()) f.fail(at, "expected an object");
    const std::string family = f.string(e, at, "family"), mode = f.string(e, at, "mode");
    if (is_record && f.integer(e, at, "tokens") == 0) {
      const auto it = m_first_of_mode.find(family + "/" + mode);
      if (it == m_first_of_mode.end())
        f.fail(at, "family " + family + " mode " + mode + " has no item in /plan/items");
      return it->second;
    }
    const std::string key = results::shape_key(family, mode, f.shape(e, at, family));
    const auto it = m_at.find(key);
    if (it == m_at.end()) f.fail(at, "its item \"" + key + "\" is not in /plan/items");
    return it->second;
  }

 private:
  std::map<std::string, std::size_t> m_at;
  std::map<std::string, std::size_t> m_first_of_mode;
};

// fraction_of_ceiling against the merged ceiling (the sweep writer's rounding).
void rescale(const json_fields& f, json& record, const std::string& at, double ceiling_tb_s) {
  const double tb_s = f.number(record, at, "achieved_tb_s");
  record["fraction_of_ceiling"] = results::fraction_of_ceiling(tb_s, ceiling_tb_s);
}

// The entries of one list ("records" or "dispatch") of every input, in item order; within an
// item, in the order of its file. Records of a file with another ceiling are rescaled.
json merged_list(const std::vector<shard_input>& inputs, const std::vector<std::size_t>& owner,
                 const item_index& index, const char* list, double ceiling_tb_s) {
  std::vector<json> per_item(owner.size(), json::array());
  const bool is_record = std::string(list) == "records";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json_fields f(inputs[i].file, /*strict=*/true);
    const json& plan = inputs[i].doc.at("plan");
    const bool rescaled = is_record && f.number(plan, "/plan", "copy_ceiling_tb_s") != ceiling_tb_s;
    const json& entries = inputs[i].doc.at(list);
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const std::string at = std::string("/") + list + "/" + std::to_string(e);
      const std::size_t item = index.of(f, entries[e], at, is_record);
      if (owner[item] != i)
        f.fail(at, "belongs to an item this file does not cover (" + shard_label(inputs[i]) + ")");
      json entry = entries[e];
      if (rescaled) rescale(f, entry, at, ceiling_tb_s);
      per_item[item].push_back(std::move(entry));
    }
  }
  json out = json::array();
  for (json& entries : per_item) {
    for (json& e : entries) out.push_back(std::move(e));
  }
  return out;
}

// The summed counts, the largest ceiling and wall time, the shards merged; no shard.
void merge_plan(const std::vector<shard_input>& inputs, json& plan) {
  long long compiles = 0, failures = 0;
  json merged_from = json::array();
  for (const shard_input& s : inputs) {
    const json_fields f(s.file, /*strict=*/true);
    const json& p = s.doc.at("plan");
    compiles += f.integer(p, "/plan", "compiles");
    failures += f.integer(p, "/plan", "compile_failures");
    for (const char* key : {"copy_ceiling_tb_s", "wall_s"}) {
      if (f.number(p, "/plan", key) > plan.at(key).get<double>()) plan[key] = p.at(key);
    }
    const json& context = s.doc.at("context");
    merged_from.push_back({{"file", s.file.string()},
                           {"shard", s.count == 0 ? json(nullptr) : json(shard_label(s))},
                           {"utc_time", f.string(context, "/context", "utc_time")}});
  }
  plan["compiles"] = compiles;
  plan["compile_failures"] = failures;
  plan["shard"] = nullptr;
  plan["merged_from"] = std::move(merged_from);
}

}  // namespace

json merge_shards(std::vector<shard_input> inputs, const std::vector<std::string>& argv) {
  if (inputs.empty()) throw error(error_kind::usage, "merge: no input files");
  // The first shard first: its context is the merged file's.
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const shard_input& a, const shard_input& b) { return a.index < b.index; });
  require_one_run(inputs);
  const std::vector<std::string> keys =
      inputs[0].doc.at("plan").at("items").get<std::vector<std::string>>();
  const std::vector<std::size_t> owner = owners(inputs, keys);

  json out = inputs[0].doc;
  out["context"]["argv"] = argv;
  const json_fields f(inputs[0].file, /*strict=*/true);
  f.number(out.at("plan"), "/plan", "copy_ceiling_tb_s");
  f.number(out.at("plan"), "/plan", "wall_s");
  merge_plan(inputs, out["plan"]);
  const double ceiling_tb_s = out["plan"]["copy_ceiling_tb_s"].get<double>();
  const item_index index(keys);
  out["records"] = merged_list(inputs, owner, index, "records", ceiling_tb_s);
  out["dispatch"] = merged_list(inputs, owner, index, "dispatch", ceiling_tb_s);
  return out;
}

}  // namespace kk3::merge
