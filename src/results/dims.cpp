#include "results/dims.hpp"

#include <algorithm>

namespace kk3::results {
namespace {

// Constant-initialized, so a labeller installed during static initialization is never lost.
label_fn g_labels = nullptr;

std::string label_of(const std::string& name) {
  return g_labels ? g_labels(name) : name;
}

template <typename Dims>
auto find_dim(Dims& d, const std::string& name) {
  return std::find_if(d.begin(), d.end(), [&](const auto& kv) { return kv.first == name; });
}

}  // namespace

long long dim_or(const dims& d, const std::string& name, long long otherwise) {
  const auto it = find_dim(d, name);
  return it == d.end() ? otherwise : it->second;
}

void set_dim(dims& d, const std::string& name, long long value) {
  const auto it = find_dim(d, name);
  if (it == d.end()) {
    d.emplace_back(name, value);
  } else {
    it->second = value;
  }
}

void set_dimension_labels(label_fn labels) {
  g_labels = labels;
}

std::string shape_text(const dims& d) {
  std::string out;
  for (const auto& [name, value] : d) {
    out += (out.empty() ? "" : " ") + label_of(name) + "=" + std::to_string(value);
  }
  return out;
}

std::string shape_suffix(const dims& d) {
  std::string out;
  for (const auto& [name, value] : d) out += "-" + label_of(name) + std::to_string(value);
  return out;
}

}  // namespace kk3::results
