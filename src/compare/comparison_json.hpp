#pragma once
// `kk3tune compare --format json`: the comparison for machines (kind "comparison",
// schema_version 1; results/schema/kk3tune-result.schema.json describes it). Unlike the text
// formats it lists every matched record, changed or not.
#include <string>

#include "compare/comparison.hpp"

namespace kk3::compare {

/// The JSON document, pretty-printed (2-space indent), ending with a newline.
std::string comparison_json(const comparison& c);

}  // namespace kk3::compare
