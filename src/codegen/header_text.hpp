#pragma once
// Text for generated C++ headers: raw-string templates filled by name, text made safe for a
// comment or a string literal, and names made C++ identifiers.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kk3::codegen {

/// Template values: each ${name} of a template becomes its value.
using values = std::vector<std::pair<std::string, std::string>>;

/// `text` with each ${name} replaced by its value in `v`; throws std::logic_error for a name
/// without one (a bug in a template).
std::string fill(std::string_view text, const values& v);

/// Text from configs and result files inside a // comment: printable ASCII only, no line
/// splice (a trailing backslash) and no "/*" (-Wcomment).
std::string comment_text(const std::string& s);

/// `s` as a C++ string literal, quotes included.
std::string cpp_string(const std::string& s);

/// Each item through `format`, joined by `separator`.
template <class T, class F>
std::string join_each(const std::vector<T>& items, std::string_view separator, F format) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += format(items[i]);
  }
  return out;
}

/// A mode name as a C++ identifier: other characters become '_', a leading digit or a keyword
/// gets a prefix or suffix '_'.
std::string to_identifier(const std::string& name);

/// True for the C++ keywords (and alternative tokens) a name must not be.
bool is_cpp_keyword(const std::string& name);

}  // namespace kk3::codegen
