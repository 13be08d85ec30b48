#include "families/registry.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::families {

#define KK3_FAMILY(name) const family& register_##name();
#include "families/list.def"
#undef KK3_FAMILY

namespace {

// The families add_family() registered (test builds: tests/families), and whether all_families()
// has been built (after that, a family added would be missing from it).
std::vector<const family& (*)()>& added_families() {
  static std::vector<const family& (*)()> k_added;
  return k_added;
}
bool g_all_built = false;

}  // namespace

bool add_family(const family& (*make)()) {
  if (g_all_built) {
    throw error(error_kind::config, "add_family: called after all_families() was built");
  }
  added_families().push_back(make);
  return true;
}

const std::vector<const family*>& all_families() {
  static const std::vector<const family*> k_all = [] {
    std::vector<const family*> all = {
#define KK3_FAMILY(name) &register_##name(),
#include "families/list.def"
#undef KK3_FAMILY
    };
    for (const auto make : added_families()) all.push_back(&make());
    g_all_built = true;
    return all;
  }();
  return k_all;
}

const family* find_registered(const std::string& name) {
  for (const family* f : all_families()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

const family& find_family(const std::string& name) {
  if (const family* f = find_registered(name)) return *f;
  std::vector<std::string> known;
  for (const family* f : all_families()) known.push_back(f->name());
  throw error(error_kind::usage,
              "unknown family '" + name + "' (known: " + join(known, ", ") + ")");
}

family_space load_family_space(const family& f, const std::filesystem::path& config_dir,
                               bool with_test_knobs) {
  const std::filesystem::path file = config_dir / (f.name() + ".json");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw error(error_kind::config, file.string() + ": missing: the config of family " + f.name());
  }
  family_space s;
  s.impl = &f;
  s.config = space::load_family_config(file);
  if (s.config.family != f.name()) {
    throw error(error_kind::config, file.string() + ": /family: expected \"" + f.name() + "\"");
  }
  s.variants = space::enumerate_variants(s.config, with_test_knobs);
  return s;
}

family_space load_family_space_from(const std::filesystem::path& file, bool with_test_knobs) {
  family_space s;
  s.config = space::load_family_config(file);
  try {
    s.impl = &find_family(s.config.family);
  } catch (const error& e) {
    throw error(error_kind::config, file.string() + ": /family: " + e.what());
  }
  s.variants = space::enumerate_variants(s.config, with_test_knobs);
  return s;
}

std::vector<const family*> select_families(const std::string& name, bool with_examples) {
  if (!name.empty()) return {&find_family(name)};
  std::vector<const family*> out;
  for (const family* f : all_families()) {
    if (with_examples || !f->is_example()) out.push_back(f);
  }
  return out;
}

namespace {

// How text names a dimension: the label the family that has it gives it, else its name.
std::string label_of(const std::string& name) {
  for (const family* f : all_families()) {
    for (const dimension& d : f->dimensions()) {
      if (d.name == name) return d.label;
    }
  }
  return name;
}

// The result model names dimensions by these labels in its text (results/dims.hpp).
const bool k_labels_installed = (results::set_dimension_labels(&label_of), true);

}  // namespace

std::string given_problem(const family& f, const std::string& name, long long value) {
  const std::optional<dimension> d = f.find_dimension(name);
  if (!d || !d->planned) {
    std::vector<std::string> planned;
    for (const dimension& x : f.dimensions()) {
      if (x.planned) planned.push_back(x.name);
    }
    std::string why = f.name() + " takes no " + name;
    if (d) why += " from a plan or a flag (its mode sets it)";
    return why + (planned.empty() ? std::string(" (it has no dimension to choose)")
                                  : " (it takes " + join(planned, ", ") + ")");
  }
  if (value < d->least)
    return name + " " + std::to_string(value) + " is below " + std::to_string(d->least);
  return {};
}

}  // namespace kk3::families
