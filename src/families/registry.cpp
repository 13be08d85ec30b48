#include "families/registry.hpp"

#include "core/error.hpp"
#include "core/text.hpp"
#include "families/attn_res/attn_res.hpp"
#include "families/copy_example/copy_example.hpp"
#include "families/empty_example/empty_example.hpp"
#include "families/mla_decode_epilogue/mla_decode_epilogue.hpp"

namespace kk3::families {

const std::vector<const family*>& all_families() {
  // One line per family.
  static const mla_decode_epilogue k_mla_decode_epilogue;
  static const attn_res k_attn_res;
  static const copy_example k_copy_example;
  static const empty_example k_empty_example;
  static const std::vector<const family*> k_all = {&k_mla_decode_epilogue, &k_attn_res, &k_copy_example, &k_empty_example};
  return k_all;
}

const family& find_family(const std::string& name) {
  std::vector<std::string> known;
  for (const family* f : all_families()) {
    if (f->name() == name) return *f;
    known.push_back(f->name());
  }
  throw error(error_kind::usage, "unknown family '" + name + "' (known: " + join(known, ", ") + ")");
}

family_space load_family_space(const family& f, const std::filesystem::path& config_dir, bool with_test_knobs) {
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

}  // namespace kk3::families
