#pragma once
// What a --variant value selects among a family's variants (time, verify, profile and sweep
// read it the same way): "all"; or a comma list of terms, each a variant id, "reference", a glob
// over ids ('b1-*', with * ? and [...]), or a knob filter NAME=VALUE ('GPW=7'). The ids and globs
// add variants; the knob filters all hold of each one chosen; a list of knob filters alone
// chooses every variant they all hold of.
#include <string>
#include <vector>

#include "space/config.hpp"
#include "space/variant.hpp"

namespace kk3::space {

/// The variants of `variants` that `selection` names: a list of ids alone in the order given
/// (an id given twice comes twice: `time` gives each copy its own sampler), anything else in the
/// order of `variants`, each once. Throws
/// error(usage) naming the family and the term for an unknown id, a glob that matches nothing,
/// a knob the family does not have or a value that is not a number, and for a selection that
/// leaves nothing.
[[nodiscard]] std::vector<const variant*> select_variants(const std::vector<variant>& variants,
                                                          const family_config& config,
                                                          const std::string& selection);

/// Whether `text` holds a glob's special characters (*, ? or [).
[[nodiscard]] bool is_glob(const std::string& text);

}  // namespace kk3::space
