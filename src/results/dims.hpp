#pragma once
// A record's model shape: the values of the model dimensions its family names (heads, blocks,
// ...), by name, and their text. The families say which dimensions they have; the result model,
// its codec and its readers carry them by name.
#include <string>
#include <utility>
#include <vector>

namespace kk3::results {

/// Values of named model dimensions, in the family's order of them.
using dims = std::vector<std::pair<std::string, long long>>;

/// The value of `name` in `d`, or `otherwise` when `d` has none.
[[nodiscard]] long long dim_or(const dims& d, const std::string& name, long long otherwise);
/// Sets `name` in `d` (appended when absent).
void set_dim(dims& d, const std::string& name, long long value);

/// How text names a dimension ("heads" -> "H"): the label the family that has it gives it.
using label_fn = std::string (*)(const std::string& name);
/// Installs the labeller (families/registry.cpp does, at static initialization); without one a
/// dimension is named by its name.
void set_dimension_labels(label_fn labels);

/// "H=16", "NB=4 H=16": model dimensions as text, each by its family's label ("" for none).
[[nodiscard]] std::string shape_text(const dims& d);
/// "-H16", "-NB4": the same as a name suffix (test, NVTX and verifier shape names).
[[nodiscard]] std::string shape_suffix(const dims& d);

}  // namespace kk3::results
