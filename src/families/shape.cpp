#include "families/shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace kk3::families {

namespace {

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

long long shape::at(const std::string& name) const {
  const auto it = find_dim(model, name);
  if (it == model.end()) throw std::logic_error("shape has no model dimension '" + name + "'");
  return it->second;
}

}  // namespace kk3::families
