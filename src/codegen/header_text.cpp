#include "codegen/header_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace kk3::codegen {

std::string fill(std::string_view text, const values& v) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t open; (open = text.find("${", at)) != std::string_view::npos;) {
    const std::size_t close = text.find('}', open);
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const auto it =
        std::find_if(v.begin(), v.end(), [&](const auto& kv) { return kv.first == name; });
    if (close == std::string_view::npos || it == v.end()) {
      throw std::logic_error("dispatch header template: no value for " + std::string(name));
    }
    out.append(text.substr(at, open - at));
    out += it->second;
    at = close + 1;
  }
  out.append(text.substr(at));
  return out;
}

std::string comment_text(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += '/';
    } else if (u < 0x20 || u >= 0x7f) {
      out += (c == '\n' || c == '\t' || c == '\r') ? ' ' : '?';
    } else if (c == '*' && !out.empty() && out.back() == '/') {
      out += " *";
    } else {
      out += c;
    }
  }
  return out;
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool is_cpp_keyword(const std::string& name) {
  static const std::set<std::string> k_keywords = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return k_keywords.count(name) != 0;
}

std::string to_identifier(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x80 && std::isalnum(u)) || c == '_' ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  if (is_cpp_keyword(out)) out += "_";
  return out;
}

}  // namespace kk3::codegen
