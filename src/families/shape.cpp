#include "families/shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace kk3::families {

long long shape::at(const std::string& name) const {
  const auto it =
      std::find_if(model.begin(), model.end(), [&](const auto& kv) { return kv.first == name; });
  if (it == model.end()) throw std::logic_error("shape has no model dimension '" + name + "'");
  return it->second;
}

}  // namespace kk3::families
