#include "space/selection_filter.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::space {

bool is_glob(const std::string& text) {
  return text.find_first_of("*?[") != std::string::npos;
}

std::vector<const variant*> select_variants(const std::vector<variant>& variants,
                                            const family_config& config,
                                            const std::string& selection) {
  const std::string where = "--variant " + selection + ": ";
  const std::string listing =
      " (`kk3tune list --family " + config.family + " --variants` lists them)";
  std::vector<const variant*> out;
  if (trim(selection) == "all") {
    for (const variant& v : variants) out.push_back(&v);
    return out;
  }
  if (split(selection, ',').empty()) {
    throw error(error_kind::usage,
                "--variant: expected an id, 'reference', a glob, NAME=VALUE, a comma list of "
                "those, or 'all'");
  }
  std::set<const variant*> named;
  std::vector<const variant*> in_order;  // the ids as given, repeats kept (a plain id list)
  bool sets = false;                     // a glob or a knob filter: the config's order
  std::vector<std::pair<std::string, long long>> knobs;  // the NAME=VALUE terms
  bool any_name = false;
  for (const std::string& term : split(selection, ',')) {
    if (const auto eq = term.find('='); eq != std::string::npos) {
      const std::string name = trim(term.substr(0, eq));
      const std::optional<long long> value = parse_integer(trim(term.substr(eq + 1)));
      std::vector<std::string> names;
      for (const auto& k : config.knobs) names.push_back(k.name);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        throw error(error_kind::usage, where + config.family + " has no knob '" + name +
                                           "' (its knobs: " + join(names, ", ") + ")");
      }
      if (!value) throw error(error_kind::usage, where + "'" + term + "': expected NAME=INTEGER");
      knobs.emplace_back(name, *value);
      sets = true;
      continue;
    }
    any_name = true;
    if (!is_glob(term)) {  // "reference", or an id
      const auto v = std::find_if(variants.begin(), variants.end(), [&](const variant& x) {
        return x.id == term || (term == "reference" && x.is_reference);
      });
      if (v == variants.end()) {
        throw error(error_kind::usage,
                    "--variant " + term + ": no such variant of " + config.family + listing);
      }
      named.insert(&*v);
      in_order.push_back(&*v);
      continue;
    }
    sets = true;
    std::size_t matched = 0;
    for (const variant& v : variants) {
      if (::fnmatch(term.c_str(), v.id.c_str(), 0) == 0) {
        named.insert(&v);
        ++matched;
      }
    }
    if (!matched) {
      throw error(error_kind::usage,
                  where + "no variant of " + config.family + " matches '" + term + "'" + listing);
    }
  }
  if (!sets) return in_order;  // ids alone: as given (time samples a repeated id twice over)
  for (const variant& v : variants) {
    if (any_name && !named.count(&v)) continue;
    if (std::all_of(knobs.begin(), knobs.end(),
                    [&](const auto& k) { return v.value(k.first) == k.second; }))
      out.push_back(&v);
  }
  if (out.empty()) {
    throw error(error_kind::usage, where +
                                       (knobs.empty() ? "names no variant"
                                                      : "no variant of " + config.family +
                                                            " has every knob value given") +
                                       listing);
  }
  return out;
}

}  // namespace kk3::space
