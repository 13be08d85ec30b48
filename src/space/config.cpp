#include "space/config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <set>

#include "core/error.hpp"
#include "core/json_parse.hpp"
#include "core/text.hpp"

namespace kk3::space {
namespace {

using json = nlohmann::ordered_json;

// Reports a problem at a JSON pointer inside the file, e.g. "configs/x.json: /knobs/SPLIT/2: ...".
[[noreturn]] void fail(const std::filesystem::path& file, const std::string& pointer,
                       const std::string& what) {
  throw error(error_kind::config,
              file.string() + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
}

const json& require(const std::filesystem::path& file, const json& object, const std::string& key,
                    json::value_t type, const char* type_name) {
  const auto it = object.find(key);
  if (it == object.end())
    fail(file, "/" + key, "missing (expected " + std::string(type_name) + ")");
  if (it->type() != type) fail(file, "/" + key, std::string("expected ") + type_name);
  return *it;
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string define_value(const std::filesystem::path& file, const std::string& pointer,
                         const json& value) {
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  if (value.is_boolean()) return value.get<bool>() ? "1" : "0";
  if (value.is_string()) return value.get<std::string>();
  fail(file, pointer, "expected an integer, a boolean or a string");
}

// True when some combination of the knob values satisfies `allowed` (odometer over the values).
bool any_combination(const std::vector<knob>& knobs,
                     const std::function<bool(const std::map<std::string, long long>&)>& allowed) {
  std::vector<std::size_t> index(knobs.size(), 0);
  for (;;) {
    std::map<std::string, long long> values;
    for (std::size_t k = 0; k < knobs.size(); ++k)
      values[knobs[k].name] = knobs[k].values[index[k]];
    if (allowed(values)) return true;
    std::size_t k = knobs.size();
    while (k > 0 && ++index[k - 1] == knobs[k - 1].values.size()) index[--k] = 0;
    if (k == 0) return false;
  }
}

// Constraints that no variant satisfies: says so at /constraints, naming a constraint that
// alone rules out every combination when there is one (else it is their conjunction).
void check_some_variant(const std::filesystem::path& file, const family_config& cfg) {
  const bool some = any_combination(cfg.knobs, [&](const std::map<std::string, long long>& v) {
    return std::all_of(cfg.constraints.begin(), cfg.constraints.end(),
                       [&](const expression& c) { return c.evaluate(v) != 0; });
  });
  if (some) return;
  for (std::size_t i = 0; i < cfg.constraints.size(); ++i) {
    const expression& c = cfg.constraints[i];
    if (!any_combination(cfg.knobs, [&](const std::map<std::string, long long>& v) {
          return c.evaluate(v) != 0;
        })) {
      fail(file, "/constraints/" + std::to_string(i),
           "the constraints leave no variant: " + c.text() +
               " holds for no combination of the knob values");
    }
  }
  fail(file, "/constraints",
       "the constraints leave no variant: no combination of the knob values satisfies them all");
}

/// The family's name, description, kernel source, entry and compile options.
void read_kernel_fields(const std::filesystem::path& file, const json& doc, family_config& cfg) {
  cfg.family = require(file, doc, "family", json::value_t::string, "a string").get<std::string>();
  if (!is_identifier(cfg.family)) fail(file, "/family", "expected an identifier");
  if (doc.contains("description")) {
    if (!doc["description"].is_string()) fail(file, "/description", "expected a string");
    cfg.description = doc["description"].get<std::string>();
  }
  cfg.source = require(file, doc, "source", json::value_t::string, "a string").get<std::string>();
  cfg.entry = require(file, doc, "entry", json::value_t::string, "a string").get<std::string>();
  if (doc.contains("options")) {
    const json& options = doc["options"];
    if (!options.is_array()) fail(file, "/options", "expected an array of strings");
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (!options[i].is_string()) fail(file, "/options/" + std::to_string(i), "expected a string");
      cfg.options.push_back(options[i].get<std::string>());
    }
  }
}

/// The modes: each an identifier with an object of defines.
void read_modes(const std::filesystem::path& file, const json& doc, family_config& cfg) {
  const json& modes = require(file, doc, "modes", json::value_t::object, "an object");
  if (modes.empty()) fail(file, "/modes", "expected at least one mode");
  for (const auto& [name, defines] : modes.items()) {
    const std::string at = "/modes/" + name;
    if (!is_identifier(name)) fail(file, at, "a mode name must be an identifier");
    if (!defines.is_object()) fail(file, at, "expected an object of defines");
    mode m{name, {}, file.string()};
    for (const auto& [key, value] : defines.items()) {
      if (!is_identifier(key)) fail(file, at + "/" + key, "a define must be an identifier");
      m.defines.emplace_back(key, define_value(file, at + "/" + key, value));
    }
    cfg.modes.push_back(std::move(m));
  }
}

/// The knobs of an object (`where` is its JSON pointer with a trailing '/'): distinct
/// non-negative integer values each.
void read_knobs(const std::filesystem::path& file, const json& knobs, const std::string& where,
                std::vector<knob>& into) {
  for (const auto& [name, values] : knobs.items()) {
    const std::string at = where + name;
    if (!is_identifier(name)) fail(file, at, "a knob name must be an identifier");
    if (!values.is_array() || values.empty()) fail(file, at, "expected a non-empty array");
    knob k{name, {}};
    for (std::size_t i = 0; i < values.size(); ++i) {
      // Values become template arguments and parts of variant ids ("split3-..."), so no sign.
      if (!values[i].is_number_integer() || values[i].get<long long>() < 0) {
        fail(file, at + "/" + std::to_string(i), "expected a non-negative integer");
      }
      const long long v = values[i].get<long long>();
      if (std::find(k.values.begin(), k.values.end(), v) != k.values.end()) {
        fail(file, at + "/" + std::to_string(i), "duplicate value " + std::to_string(v));
      }
      k.values.push_back(v);
    }
    into.push_back(std::move(k));
  }
}

/// The constraints: expressions over the tuning knobs (`knob_names`).
void read_constraints(const std::filesystem::path& file, const json& doc,
                      const std::set<std::string>& knob_names, family_config& cfg) {
  if (!doc.contains("constraints")) return;
  const json& constraints = doc["constraints"];
  if (!constraints.is_array()) fail(file, "/constraints", "expected an array of strings");
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    const std::string at = "/constraints/" + std::to_string(i);
    if (!constraints[i].is_string()) fail(file, at, "expected a string");
    try {
      expression e = expression::parse(constraints[i].get<std::string>());
      for (const std::string& name : e.names()) {
        if (!knob_names.count(name)) fail(file, at, "unknown knob '" + name + "'");
      }
      cfg.constraints.push_back(std::move(e));
    } catch (const std::invalid_argument& e) {
      fail(file, at, e.what());
    }
  }
}

/// The reference variant: one of every knob's values, within the constraints.
void read_reference(const std::filesystem::path& file, const json& doc,
                    const std::set<std::string>& knob_names, family_config& cfg) {
  const json& reference = require(file, doc, "reference", json::value_t::object, "an object");
  for (const knob& k : cfg.knobs) {
    const std::string at = "/reference/" + k.name;
    if (!reference.contains(k.name)) fail(file, at, "missing: the reference sets every knob");
    const json& v = reference[k.name];
    if (!v.is_number_integer()) fail(file, at, "expected an integer");
    if (std::find(k.values.begin(), k.values.end(), v.get<long long>()) == k.values.end()) {
      fail(file, at, "not one of the knob's values");
    }
    cfg.reference[k.name] = v.get<long long>();
  }
  for (const auto& [key, value] : reference.items()) {
    if (!knob_names.count(key)) fail(file, "/reference/" + key, "unknown knob");
  }
  for (std::size_t i = 0; i < cfg.constraints.size(); ++i) {
    if (!cfg.constraints[i].evaluate(cfg.reference)) {
      check_some_variant(file, cfg);  // constraints that leave no variant are the real problem
      fail(file, "/reference",
           "violates constraint " + std::to_string(i) + " (" + cfg.constraints[i].text() + ")");
    }
  }
}

/// Every {KNOB} placeholder in the entry must name a knob.
void check_entry(const std::filesystem::path& file, const std::set<std::string>& knob_names,
                 const family_config& cfg) {
  for (std::size_t open = cfg.entry.find('{'); open != std::string::npos;
       open = cfg.entry.find('{', open + 1)) {
    const std::size_t close = cfg.entry.find('}', open);
    if (close == std::string::npos) fail(file, "/entry", "unclosed '{'");
    const std::string name = cfg.entry.substr(open + 1, close - open - 1);
    if (!knob_names.count(name)) fail(file, "/entry", "unknown knob '{" + name + "}'");
  }
}

}  // namespace

family_config load_family_config(const std::filesystem::path& file) {
  const std::string text = read_file(file);
  json doc;
  try {
    doc = parse_json_text(file, text);  // a syntax error is placed by JSON pointer
  } catch (const error& e) {
    throw error(error_kind::config, e.what());
  }
  if (!doc.is_object()) fail(file, "", "expected an object");

  static const std::set<std::string> known = {"family",    "description", "source", "entry",
                                              "options",   "modes",       "knobs",  "constraints",
                                              "reference", "test_knobs"};
  for (const auto& [key, value] : doc.items()) {
    if (!known.count(key)) fail(file, "/" + key, "unknown key");
  }

  family_config cfg;
  cfg.file = file;
  read_kernel_fields(file, doc, cfg);
  read_modes(file, doc, cfg);
  read_knobs(file, require(file, doc, "knobs", json::value_t::object, "an object"), "/knobs/",
             cfg.knobs);
  if (doc.contains("test_knobs")) {
    if (!doc["test_knobs"].is_object()) fail(file, "/test_knobs", "expected an object");
    read_knobs(file, doc["test_knobs"], "/test_knobs/", cfg.test_knobs);
  }
  std::set<std::string> knob_names;
  for (const knob& k : cfg.knobs) knob_names.insert(k.name);
  for (const knob& k : cfg.test_knobs) {
    if (knob_names.count(k.name)) fail(file, "/test_knobs/" + k.name, "also a tuning knob");
  }
  read_constraints(file, doc, knob_names, cfg);
  read_reference(file, doc, knob_names, cfg);
  check_entry(file, knob_names, cfg);
  return cfg;
}

const mode& find_mode(const family_config& config, const std::string& name) {
  std::string names;
  for (const mode& m : config.modes) {
    if (m.name == name) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  // A misspelt name may be meant for --timing; the timing modes' names are spelt here rather than
  // taken from results/, which sits above space/.
  std::vector<std::string> candidates;
  for (const mode& m : config.modes) candidates.push_back(m.name);
  const std::vector<std::string> timings = {"graph", "isolated", "cold", "chain"};
  candidates.insert(candidates.end(), timings.begin(), timings.end());
  const std::string near = nearest_word(name, candidates);
  std::string hint;
  if (!near.empty()) {
    const bool timing = std::find(timings.begin(), timings.end(), near) != timings.end();
    hint = timing ? "; did you mean --timing " + near + "? (a timing mode, not a mode of a family)"
                  : "; did you mean " + near + "?";
  }
  throw error(error_kind::usage, "family " + config.family + " has no mode '" + name +
                                     "' (its modes: " + names + ")" + hint);
}

}  // namespace kk3::space
