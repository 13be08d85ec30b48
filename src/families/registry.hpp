#pragma once
// Every kernel family kk3tune knows, and the loading of a family's config and variants.
#include <filesystem>
#include <string>
#include <vector>

#include "families/family.hpp"
#include "space/config.hpp"
#include "space/variant.hpp"

namespace kk3::families {

/// Registers a family that src/families/list.def does not list: the test families
/// (tests/families/list.def), which only test builds link in, each from a static initializer.
/// Must run before the first all_families(); throws error(config) after it. Returns true.
bool add_family(const family& (*make)());
/// Every registered family (examples included): list.def's in its order, then add_family()'s.
const std::vector<const family*>& all_families();
/// The family with this name, or nullptr.
const family* find_registered(const std::string& name);
/// The family with this name; throws error(usage) listing the known ones.
[[nodiscard]] const family& find_family(const std::string& name);

/// A family with its config and variants, as loaded from configs/<name>.json.
struct family_space {
  const family* impl = nullptr;
  space::family_config config;
  std::vector<space::variant> variants;
};

/// Loads configs/<name>.json for a family and enumerates its variants; throws error(config)
/// when the config is missing or bad, or names another family.
[[nodiscard]] family_space load_family_space(const family& f,
                                             const std::filesystem::path& config_dir,
                                             bool with_test_knobs = false);

/// Loads a family config from any file (the family is the one its "family" key names).
[[nodiscard]] family_space load_family_space_from(const std::filesystem::path& file,
                                                  bool with_test_knobs = false);

/// The families a command acts on: the named one, or every non-example family (plus the
/// examples when `with_examples`).
[[nodiscard]] std::vector<const family*> select_families(const std::string& name,
                                                         bool with_examples);

/// Model dimensions as text, each by its family's label (results/dims.hpp; this registry
/// installs the labels).
using results::shape_suffix;
using results::shape_text;

/// Why a plan or a flag may not give `value` for `f`'s dimension `name` (it must be one a plan may
/// choose, dimension::planned, at or above its least value); empty when it may.
[[nodiscard]] std::string given_problem(const family& f, const std::string& name, long long value);

}  // namespace kk3::families
