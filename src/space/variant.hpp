#pragma once
// One point of a family's search space, and the enumeration of all of them.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "space/config.hpp"

namespace kk3::space {

/// A variant: one value for every knob. Knobs named in the entry become template arguments;
/// the others become -D defines.
struct variant {
  std::string id;  ///< e.g. "vec_bytes16-unroll1-threads256"; no '/', so it is a valid NVTX name
  std::vector<std::pair<std::string, long long>> knobs;  ///< in the config's knob order
  bool is_reference = false;
  bool test_only = false;  ///< made with a test-only knob: never shipped, never selected

  long long value(const std::string& knob_name) const;
};

/// Every variant the knobs and constraints allow, in a stable order (the config's knob order,
/// last knob fastest); the reference variant is marked. With `with_test_knobs`, one more
/// variant per non-default test-knob value: the reference with that value (test_only).
/// Throws error(config) when the constraints leave nothing.
[[nodiscard]] std::vector<variant> enumerate_variants(const family_config& config,
                                                      bool with_test_knobs = false);

/// The variant with the given id; throws error(usage) naming the family when there is none.
[[nodiscard]] const variant& find_variant(const std::vector<variant>& variants,
                                          const family_config& config, const std::string& id);

/// The entry name expression with each {KNOB} replaced by the variant's value.
std::string entry_expression(const family_config& config, const variant& v);

/// The prefix of every macro kk3tune defines for a family's kernel: "KK3_", the family name
/// upper-cased, "_" (attn_res: "KK3_ATTN_RES_"). The config names a mode's defines and the knobs
/// by their short names (H, NB: the model's dimensions in results and item keys); the kernel
/// source sees them prefixed, so no macro named H or NB reaches a downstream translation unit.
std::string macro_prefix(const std::string& family);

/// The macro a kernel of the family reads for the config's `name` (macro_prefix() + name).
std::string macro_name(const family_config& config, const std::string& name);

/// The -D defines of a variant in a mode: the mode's defines, then each knob that is not a
/// template argument, each named by macro_name() (e.g. -DKK3_ATTN_RES_NB=8).
[[nodiscard]] std::vector<std::string> variant_defines(const family_config& config, const mode& m,
                                                       const variant& v);

}  // namespace kk3::space
