#pragma once
// Typed, located access to a result file's JSON for the codec's readers: every
// failure names the file and the JSON pointer.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_parse.hpp"
#include "results/dims.hpp"
#include "results/objective.hpp"
#include "results/schema.hpp"

namespace kk3::results {

/// Typed access to one file's JSON; every failure names the file and the JSON pointer.
/// Lenient (the default) in one way only: an integer field holding a number with a fraction (a
/// count stored as 12.5 by a script that scaled the file) is read, rounded to the nearest
/// integer. Strict (for `emit`, whose input becomes code): integers must be integers.
class json_fields {
 public:
  using json = nlohmann::ordered_json;
  explicit json_fields(const std::filesystem::path& file, bool strict = false)
      : m_file(file), m_strict(strict) {}
  bool strict() const { return m_strict; }

  [[noreturn]] void fail(const std::string& at, const std::string& what) const {
    throw error(error_kind::input, m_file.string() + ": " + (at.empty() ? "/" : at) + ": " + what);
  }

  /// The file's schema_version, one this kk3tune reads (json_parse.hpp).
  int schema_version(const json& doc) const {
    const json* v = find(doc, "schema_version");
    if (!v) fail("/schema_version", "missing (not a kk3tune result file?)");
    if (!v->is_number()) fail("/schema_version", "expected an integer");
    const double d = v->get<double>();
    if (d != std::floor(d) || d < k_oldest_schema_version || d > k_schema_version) {
      const std::string shown =
          v->is_number_integer() ? std::to_string(v->get<long long>()) : v->dump();
      fail("/schema_version", "schema_version " + shown + " is not supported (this kk3tune reads " +
                                  std::to_string(k_oldest_schema_version) + " to " +
                                  std::to_string(k_schema_version) + ")");
    }
    return static_cast<int>(d);
  }

  /// An objective (results/objective.hpp) as a result file holds it.
  results::objective objective(const json& j, const std::string& at) const {
    return objective_from_json(
        j, results::objective{}, at,
        [this](const std::string& p, const std::string& what) { fail(p, what); });
  }

  /// The member, or nullptr when the object has none.
  const json* find(const json& object, const std::string& key) const {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  const json& member(const json& object, const std::string& at, const std::string& key) const {
    const json* v = find(object, key);
    if (!v) fail(at + "/" + key, "missing");
    return *v;
  }
  const json& object(const json& parent, const std::string& at, const std::string& key) const {
    const json& v = member(parent, at, key);
    if (!v.is_object()) fail(at + "/" + key, "expected an object");
    return v;
  }
  const json& array(const json& parent, const std::string& at, const std::string& key) const {
    const json& v = member(parent, at, key);
    if (!v.is_array()) fail(at + "/" + key, "expected an array");
    return v;
  }
  std::string string(const json& parent, const std::string& at, const std::string& key) const {
    const json& v = member(parent, at, key);
    if (!v.is_string()) fail(at + "/" + key, "expected a string");
    return v.get<std::string>();
  }
  /// An optional string: absent or null reads as empty.
  std::string optional_string(const json& parent, const std::string& at,
                              const std::string& key) const {
    const json* v = find(parent, key);
    if (!v || v->is_null()) return {};
    if (!v->is_string()) fail(at + "/" + key, "expected a string");
    return v->get<std::string>();
  }
  double number_value(const json& v, const std::string& at) const {
    if (!v.is_number()) fail(at, "expected a number");
    return v.get<double>();
  }
  double number(const json& parent, const std::string& at, const std::string& key) const {
    return number_value(member(parent, at, key), at + "/" + key);
  }
  double optional_number(const json& parent, const std::string& at, const std::string& key) const {
    const json* v = find(parent, key);
    return v ? number_value(*v, at + "/" + key) : 0.0;
  }
  long long integer_value(const json& v, const std::string& at) const {
    if (v.is_number_integer()) return v.get<long long>();
    if (!v.is_number() || m_strict) fail(at, "expected an integer");
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 9.0e18) fail(at, "expected an integer");
    return std::llround(d);
  }
  long long integer(const json& parent, const std::string& at, const std::string& key) const {
    return integer_value(member(parent, at, key), at + "/" + key);
  }
  long long optional_integer(const json& parent, const std::string& at,
                             const std::string& key) const {
    const json* v = find(parent, key);
    return v ? integer_value(*v, at + "/" + key) : 0;
  }
  bool optional_boolean(const json& parent, const std::string& at, const std::string& key) const {
    const json* v = find(parent, key);
    if (!v) return false;
    if (!v->is_boolean()) fail(at + "/" + key, "expected true or false");
    return v->get<bool>();
  }
  std::vector<double> numbers(const json& parent, const std::string& at,
                              const std::string& key) const {
    const json& v = array(parent, at, key);
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(number_value(v[i], at + "/" + key + "/" + std::to_string(i)));
    }
    return out;
  }
  std::vector<long long> integers(const json& parent, const std::string& at,
                                  const std::string& key) const {
    const json& v = array(parent, at, key);
    std::vector<long long> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(integer_value(v[i], at + "/" + key + "/" + std::to_string(i)));
    }
    return out;
  }
  std::vector<std::string> strings(const json& parent, const std::string& at,
                                   const std::string& key) const {
    const json& v = array(parent, at, key);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(at + "/" + key + "/" + std::to_string(i), "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  std::vector<std::pair<std::string, long long>> knobs(const json& parent, const std::string& at,
                                                       const std::string& key) const {
    std::vector<std::pair<std::string, long long>> out;
    for (const auto& [name, value] : object(parent, at, key).items()) {
      out.emplace_back(name, integer_value(value, at + "/" + key + "/" + json_pointer_token(name)));
    }
    return out;
  }
  /// What a record or a table says first: its family, mode and model shape.
  struct entry_head {
    std::string family, mode;
    dims shape;
  };
  /// The head of the record or table `e` at `at` (which must be an object).
  entry_head head(const json& e, const std::string& at) const {
    if (!e.is_object()) fail(at, "expected an object");
    entry_head h{string(e, at, "family"), string(e, at, "mode"), {}};
    h.shape = shape(e, at, h.family);
    return h;
  }
  /// The model shape of a record or table of `family` at `at`: the object "shape" (schema 2),
  /// or the integers "heads" and "blocks" of schema 1, of which it keeps those `family` had as
  /// key dimensions then (both nonzero ones for a family schema 1 did not know).
  dims shape(const json& e, const std::string& at, const std::string& family) const {
    dims out;
    if (const json* s = find(e, "shape")) {
      if (!s->is_object()) fail(at + "/shape", "expected an object of dimension name -> integer");
      for (const auto& [name, value] : s->items()) {
        out.emplace_back(name, integer_value(value, at + "/shape/" + json_pointer_token(name)));
      }
      return out;
    }
    // The families of schema 1 and the key dimension each had (an upgrade: frozen with it).
    static const std::pair<const char*, const char*> k_schema1_keys[] = {
        {"mla_decode_epilogue", "heads"},
        {"attn_res", "blocks"},
        {"copy_example", nullptr},
        {"empty_example", nullptr}};
    const auto* known = std::find_if(std::begin(k_schema1_keys), std::end(k_schema1_keys),
                                     [&](const auto& k) { return family == k.first; });
    const bool f = known != std::end(k_schema1_keys);
    for (const char* name : {"heads", "blocks"}) {
      // a field of schema 1 the family does not have
      if (f && !(known->second && std::string(known->second) == name)) continue;
      const long long v = integer(e, at, name);
      if (f || v != 0) out.emplace_back(name, v);
    }
    return out;
  }

 private:
  const std::filesystem::path& m_file;
  bool m_strict;
};

}  // namespace kk3::results
