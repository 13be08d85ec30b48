#pragma once
// Integer constraint expressions over knob values, e.g. "VEC_BYTES * UNROLL <= 32 && SPLIT != 3".
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kk3::space {

/// A parsed expression: integers, knob names, + - * / %, comparisons, && || !, parentheses.
/// Division or remainder by zero evaluates to false for the whole constraint (the variant is
/// dropped), never to undefined behaviour.
class expression {
 public:
  /// Parses `text`; throws std::invalid_argument with the position of the first problem.
  [[nodiscard]] static expression parse(const std::string& text);

  /// The value under the given knob values; throws std::invalid_argument for an unknown name.
  [[nodiscard]] long long evaluate(const std::map<std::string, long long>& values) const;
  /// Every name the expression refers to.
  std::vector<std::string> names() const;
  const std::string& text() const { return m_text; }

  struct node;

 private:
  std::string m_text;
  std::shared_ptr<const node> m_root;
};

}  // namespace kk3::space
