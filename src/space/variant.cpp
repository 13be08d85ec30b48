#include "space/variant.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace kk3::space {

long long variant::value(const std::string& knob_name) const {
  for (const auto& [name, v] : knobs) {
    if (name == knob_name) return v;
  }
  throw error(error_kind::usage, "variant " + id + " has no knob " + knob_name);
}

namespace {

std::string make_id(const std::vector<std::pair<std::string, long long>>& knobs) {
  std::string id;
  for (const auto& [name, value] : knobs) {
    if (!id.empty()) id += '-';
    for (char c : name) id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    id += std::to_string(value);
  }
  return id.empty() ? "default" : id;
}

// Odometer step over the knob values, last knob fastest; false after the last combination.
bool advance(std::vector<std::size_t>& index, const std::vector<knob>& knobs) {
  for (std::size_t k = knobs.size(); k-- > 0;) {
    if (++index[k] < knobs[k].values.size()) return true;
    index[k] = 0;
  }
  return false;
}

}  // namespace

std::vector<variant> enumerate_variants(const family_config& config, bool with_test_knobs) {
  std::vector<variant> out;
  std::vector<std::size_t> index(config.knobs.size(), 0);
  for (;;) {
    variant v;
    std::map<std::string, long long> values;
    for (std::size_t k = 0; k < config.knobs.size(); ++k) {
      const long long value = config.knobs[k].values[index[k]];
      v.knobs.emplace_back(config.knobs[k].name, value);
      values[config.knobs[k].name] = value;
    }
    const bool allowed = std::all_of(config.constraints.begin(), config.constraints.end(),
                                     [&](const expression& c) { return c.evaluate(values) != 0; });
    if (allowed) {
      v.id = make_id(v.knobs);
      v.is_reference = values == config.reference;
      out.push_back(std::move(v));
    }
    if (!advance(index, config.knobs)) break;
  }
  if (out.empty()) {
    throw error(error_kind::config,
                config.file.string() + ": /constraints: the constraints leave no variant");
  }
  if (with_test_knobs) {
    const variant reference =
        *std::find_if(out.begin(), out.end(), [](const variant& v) { return v.is_reference; });
    for (const knob& k : config.test_knobs) {
      for (std::size_t i = 1; i < k.values.size(); ++i) {
        variant t = reference;
        t.knobs.emplace_back(k.name, k.values[i]);
        t.id = make_id(t.knobs);
        t.is_reference = false;
        t.test_only = true;
        out.push_back(std::move(t));
      }
    }
  }
  return out;
}

const variant& find_variant(const std::vector<variant>& variants, const family_config& config,
                            const std::string& id) {
  for (const variant& v : variants) {
    if (v.id == id) return v;
  }
  if (id == "reference") {
    for (const variant& v : variants) {
      if (v.is_reference) return v;
    }
  }
  throw error(error_kind::usage, "family " + config.family + " has no variant '" + id +
                                     "' (`kk3tune list --variants` shows them)");
}

std::string entry_expression(const family_config& config, const variant& v) {
  std::string out;
  const std::string& e = config.entry;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] == '{') {
      const std::size_t close = e.find('}', i);
      out += std::to_string(v.value(e.substr(i + 1, close - i - 1)));
      i = close;
    } else {
      out += e[i];
    }
  }
  return out;
}

std::string macro_prefix(const std::string& family) {
  std::string prefix = "KK3_";
  for (char c : family) prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return prefix + "_";
}

std::string macro_name(const family_config& config, const std::string& name) {
  return macro_prefix(config.family) + name;
}

std::vector<std::string> variant_defines(const family_config& config, const mode& m,
                                         const variant& v) {
  std::vector<std::string> defines;
  for (const auto& [name, value] : m.defines)
    defines.push_back("-D" + macro_name(config, name) + "=" + value);
  for (const auto& [name, value] : v.knobs) {
    if (config.entry.find("{" + name + "}") == std::string::npos) {
      defines.push_back("-D" + macro_name(config, name) + "=" + std::to_string(value));
    }
  }
  return defines;
}

}  // namespace kk3::space
