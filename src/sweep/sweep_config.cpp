#include "sweep/sweep_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <set>

#include "core/error.hpp"
#include "core/json_parse.hpp"
#include "core/text.hpp"
#include "families/registry.hpp"

namespace kk3::sweep {
namespace {

using json = nlohmann::ordered_json;

/// Reads a plan with errors that name the file and a JSON pointer.
class reader {
 public:
  explicit reader(std::filesystem::path file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const {
    throw error(error_kind::config,
                m_file.string() + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
  }
  void only_keys(const json& object, const std::string& pointer,
                 const std::set<std::string>& known) const {
    if (!object.is_object()) fail(pointer, "expected an object");
    for (const auto& [key, value] : object.items()) {
      if (!known.count(key)) fail(pointer + "/" + key, "unknown key");
    }
  }
  std::vector<long long> positive_list(const json& v, const std::string& pointer) const {
    return integer_list(v, pointer, 1, "a positive integer", "positive integers");
  }
  /// A model dimension's values: integers. The sweep checks each against the family's least
  /// value (families::given_problem); `least`, where kk3tune knows it, is named when the value is
  /// no array.
  std::vector<long long> dimension_list(const json& v, const std::string& pointer,
                                        std::optional<long long> least) const {
    const std::string many = least ? "integers of at least " + std::to_string(*least) : "integers";
    if (v.is_number_integer() && least && v.get<long long>() < *least)
      fail(pointer, "expected a non-empty array of " + many);
    return integer_list(v, pointer, LLONG_MIN, "an integer", many);
  }
  /// A non-empty array of distinct integers >= least; `one` and `many` name its items in
  /// messages ("a positive integer", "positive integers"). A lone integer is shown as the array
  /// it should have been.
  std::vector<long long> integer_list(const json& v, const std::string& pointer, long long least,
                                      const std::string& one, const std::string& many) const {
    if (!v.is_array() || v.empty()) {
      const bool lone = v.is_number_integer() && v.get<long long>() >= least;
      fail(pointer,
           "expected a non-empty array of " + many + (lone ? ", such as [" + v.dump() + "]" : ""));
    }
    std::vector<long long> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number_integer() || v[i].get<long long>() < least)
        fail(pointer + "/" + std::to_string(i), "expected " + one);
      if (std::find(out.begin(), out.end(), v[i].get<long long>()) != out.end()) {
        fail(pointer + "/" + std::to_string(i),
             "duplicate value " + std::to_string(v[i].get<long long>()));
      }
      out.push_back(v[i].get<long long>());
    }
    return out;
  }
  std::vector<std::string> string_list(const json& v, const std::string& pointer) const {
    if (!v.is_array() || v.empty()) fail(pointer, "expected a non-empty array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(pointer + "/" + std::to_string(i), "expected a string");
      if (std::find(out.begin(), out.end(), v[i].get<std::string>()) != out.end()) {
        fail(pointer + "/" + std::to_string(i),
             "duplicate value \"" + v[i].get<std::string>() + "\"");
      }
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  double number(const json& object, const std::string& key, const std::string& pointer, double lo,
                double hi, double fallback) const {
    if (!object.contains(key)) return fallback;
    const json& v = object[key];
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi) {
      fail(pointer + "/" + key,
           "expected a number from " + format_number(lo) + " to " + format_number(hi));
    }
    return v.get<double>();
  }
  /// A number in the key's own unit (`unit`: 1 for a fraction, 100 for percent), or a string
  /// such as "2%", from lo to hi in that unit; `expected` is the message when it is neither.
  double proportion(const json& object, const std::string& key, const std::string& pointer,
                    double unit, double lo, double hi, double fallback,
                    const std::string& expected) const {
    if (!object.contains(key)) return fallback;
    const json& v = object[key];
    std::optional<double> x;
    if (v.is_number()) x = v.get<double>();
    if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>().back() == '%') {
      if (const auto f = parse_percent(v.get<std::string>())) x = unit * *f;
    }
    if (!x || *x < lo || *x > hi) fail(pointer + "/" + key, expected);
    return *x;
  }
  /// A fraction written as a number (0.02) or as a percentage string ("2%"), from lo to hi.
  double fraction(const json& object, const std::string& key, const std::string& pointer, double lo,
                  double hi, double fallback) const {
    return proportion(object, key, pointer, 1, lo, hi, fallback,
                      "expected a fraction from " + format_number(lo) + " to " + format_number(hi) +
                          ", or a percentage from " + format_number(100 * lo) + "% to " +
                          format_number(100 * hi) + "%");
  }
  /// A percentage written as a number of percent (0.5) or as a string ("0.5%"), from lo to hi
  /// percent.
  double percent(const json& object, const std::string& key, const std::string& pointer, double lo,
                 double hi, double fallback) const {
    return proportion(object, key, pointer, 100, lo, hi, fallback,
                      "expected a percentage from " + format_number(lo) + " to " +
                          format_number(hi) + " (a number, or a string such as \"0.5%\")");
  }
  std::size_t count(const json& object, const std::string& key, const std::string& pointer,
                    std::size_t lo, std::size_t fallback) const {
    if (!object.contains(key)) return fallback;
    const json& v = object[key];
    if (!v.is_number_integer() || v.get<long long>() < static_cast<long long>(lo)) {
      fail(pointer + "/" + key, "expected an integer >= " + std::to_string(lo));
    }
    return static_cast<std::size_t>(v.get<long long>());
  }

 private:
  std::filesystem::path m_file;
};

}  // namespace

const std::vector<long long>& default_tokens() {
  static const std::vector<long long> t = {1,   2,   4,   8,   16,  32,   48,   64,   65,  96,
                                           128, 192, 256, 384, 512, 1024, 2048, 4096, 8192};
  return t;
}

namespace {

/// A family plan's model shapes: "shapes": {"heads": [16, 32]}, values for dimensions the family
/// lets a plan choose (checked against the family by the sweep), or the first form of the plan,
/// "heads": [16, 32].
void read_shapes(const reader& r, const json& plan, const std::string& p, family_plan& f) {
  // The least value of the family's dimension, when kk3tune knows both and a plan may give it.
  const auto least = [&](const std::string& dim) -> std::optional<long long> {
    const families::family* family = families::find_registered(f.family);
    const std::optional<families::dimension> d =
        family ? family->find_dimension(dim) : std::nullopt;
    return d && d->planned ? std::optional<long long>(d->least) : std::nullopt;
  };
  if (plan.contains("shapes")) {
    const json& shapes = plan["shapes"];
    if (!shapes.is_object() || shapes.empty())
      r.fail(p + "/shapes", "expected an object of dimension name -> values");
    for (const auto& [dim, values] : shapes.items()) {
      f.shapes.emplace_back(dim, r.dimension_list(values, p + "/shapes/" + dim, least(dim)));
      f.shapes_at.push_back(p + "/shapes/" + dim);
    }
  }
  if (plan.contains("heads")) {
    if (plan.contains("shapes") && plan["shapes"].contains("heads"))
      r.fail(p + "/heads", "given twice (also in /shapes)");
    f.shapes.emplace_back(
        "heads", r.dimension_list(plan["heads"], p + "/heads", least("heads").value_or(1)));
    f.shapes_at.push_back(p + "/heads");
  }
}

/// The plan's families: each one's modes, shapes, variants and objective.
void read_families(const reader& r, const json& doc, sweep_config& c) {
  if (!doc.contains("families"))
    r.fail("/families", "missing (expected an object of family name -> plan)");
  const json& fams = doc["families"];
  if (!fams.is_object()) r.fail("/families", "expected an object of family name -> plan");
  if (fams.empty()) r.fail("/families", "expected at least one family");
  for (const auto& [name, plan] : fams.items()) {
    const std::string p = "/families/" + name;
    r.only_keys(plan, p, {"modes", "shapes", "heads", "variants", "variants_note", "objective"});
    family_plan f;
    f.family = name;
    if (plan.contains("modes")) {
      const json& modes = plan["modes"];
      if (modes != "all" && (!modes.is_array() || modes.empty()))
        r.fail(p + "/modes", "expected \"all\" or a non-empty array of mode names");
      if (modes.is_array()) f.modes = r.string_list(modes, p + "/modes");
    }
    read_shapes(r, plan, p, f);
    if (plan.contains("variants")) f.variants = r.string_list(plan["variants"], p + "/variants");
    if (plan.contains("variants_note")) {
      if (!plan["variants_note"].is_string() || !plan.contains("variants"))
        r.fail(p + "/variants_note", "expected a string, beside a \"variants\" list it explains");
      f.variants_note = plan["variants_note"].get<std::string>();
    }
    if (plan.contains("objective")) f.objective = plan["objective"];
    c.families.push_back(std::move(f));
  }
}

/// The selection, screening and timing settings (each defaults where the plan is silent).
void read_settings(const reader& r, const json& doc, sweep_config& c) {
  if (doc.contains("selection")) {
    const json& s = doc["selection"];
    r.only_keys(s, "/selection", {"min_gain", "noise_sigmas", "noise_floor"});
    c.selection.min_gain = r.fraction(s, "min_gain", "/selection", 0, 1, c.selection.min_gain);
    c.selection.noise_sigmas =
        r.number(s, "noise_sigmas", "/selection", 0, 10, c.selection.noise_sigmas);
    c.selection.noise_floor =
        r.fraction(s, "noise_floor", "/selection", 0, 0.5, c.selection.noise_floor);
  }
  if (doc.contains("screening")) {
    const json& s = doc["screening"];
    r.only_keys(s, "/screening",
                {"samples", "keep_fraction", "keep_min", "final_max", "carry", "full_every"});
    c.screen.samples = r.count(s, "samples", "/screening", 1, c.screen.samples);
    c.screen.keep_fraction =
        r.number(s, "keep_fraction", "/screening", 0.01, 1, c.screen.keep_fraction);
    c.screen.keep_min = r.count(s, "keep_min", "/screening", 1, c.screen.keep_min);
    c.screen.final_max = r.count(s, "final_max", "/screening", 1, c.screen.final_max);
    c.screen.carry = r.count(s, "carry", "/screening", 0, c.screen.carry);
    c.screen.full_every = r.number(s, "full_every", "/screening", 1, 1e9, c.screen.full_every);
  }
  if (doc.contains("timing")) {
    const json& s = doc["timing"];
    r.only_keys(s, "/timing", {"noise_percent", "min_samples", "max_time_s"});
    c.timing.noise_percent =
        r.percent(s, "noise_percent", "/timing", 0.01, 100, c.timing.noise_percent);
    c.timing.min_samples = r.count(s, "min_samples", "/timing", 2, c.timing.min_samples);
    c.timing.max_time_s = r.number(s, "max_time_s", "/timing", 0.001, 60, c.timing.max_time_s);
  }
}

}  // namespace

sweep_config load_sweep_config(const std::filesystem::path& file) {
  const reader r(file);
  json doc;
  try {
    doc = parse_json_text(file, read_file(file));  // a syntax error is placed by JSON pointer
  } catch (const error& e) {
    throw error(e.kind() == error_kind::io ? error_kind::io : error_kind::config, e.what());
  }
  if (!doc.is_object()) r.fail("", "expected an object");
  sweep_config c;
  c.file = file;
  c.selection.noise_floor = select::k_default_noise_floor;
  if (doc.contains("family")) {  // a family config: sweep that family alone
    if (!doc["family"].is_string()) r.fail("/family", "expected a string");
    family_plan whole;
    whole.family = doc["family"].get<std::string>();
    c.families.push_back(std::move(whole));
    c.tokens = default_tokens();
    c.verify_tokens = {65};
    c.is_family_config = true;
    return c;
  }
  r.only_keys(doc, "",
              {"description", "families", "tokens", "selection", "screening", "timing", "verify"});
  read_families(r, doc, c);
  c.tokens = doc.contains("tokens") ? r.positive_list(doc["tokens"], "/tokens") : default_tokens();
  for (std::size_t i = 1; i < c.tokens.size(); ++i) {
    if (c.tokens[i] <= c.tokens[i - 1])
      r.fail("/tokens/" + std::to_string(i), "expected ascending, distinct token counts");
  }
  read_settings(r, doc, c);
  c.verify_tokens = {65};
  if (doc.contains("verify")) {
    const json& s = doc["verify"];
    r.only_keys(s, "/verify", {"tokens"});
    if (s.contains("tokens")) c.verify_tokens = r.positive_list(s["tokens"], "/verify/tokens");
  }
  return c;
}

}  // namespace kk3::sweep
