#include "space/expression.hpp"

#include <cctype>
#include <stdexcept>

namespace kk3::space {

struct expression::node {
  enum class type { number, name, unary, binary } kind;
  long long number = 0;
  std::string text;  // the name, or the operator
  std::shared_ptr<const node> lhs, rhs;
};

namespace {

using node_ptr = std::shared_ptr<const expression::node>;
using node = expression::node;

struct division_by_zero {};

class parser {
 public:
  explicit parser(const std::string& text) : m_text(text) {}

  node_ptr parse_all() {
    node_ptr n = parse_binary(0);
    skip_blanks();
    if (m_pos != m_text.size()) fail("unexpected '" + m_text.substr(m_pos, 1) + "'");
    return n;
  }

 private:
  // Binary operators by precedence level, lowest first.
  static int precedence(const std::string& op) {
    if (op == "||") return 1;
    if (op == "&&") return 2;
    if (op == "==" || op == "!=") return 3;
    if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return -1;
  }

  void skip_blanks() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
      ++m_pos;
  }

  std::string peek_operator() {
    skip_blanks();
    static const char* ops[] = {"||", "&&", "==", "!=", "<=", ">=", "<",
                                ">",  "+",  "-",  "*",  "/",  "%"};
    for (const char* op : ops) {
      if (m_text.compare(m_pos, std::char_traits<char>::length(op), op) == 0) return op;
    }
    return {};
  }

  node_ptr parse_binary(int min_level) {
    node_ptr lhs = parse_unary();
    for (;;) {
      const std::string op = peek_operator();
      const int level = op.empty() ? -1 : precedence(op);
      if (level < 0 || level < min_level) break;
      m_pos += op.size();
      node_ptr rhs = parse_binary(level + 1);
      lhs = std::make_shared<node>(node{node::type::binary, 0, op, lhs, rhs});
    }
    return lhs;
  }

  node_ptr parse_unary() {
    skip_blanks();
    if (m_pos < m_text.size() && (m_text[m_pos] == '!' || m_text[m_pos] == '-')) {
      const std::string op(1, m_text[m_pos++]);
      return std::make_shared<node>(node{node::type::unary, 0, op, parse_unary(), nullptr});
    }
    return parse_primary();
  }

  node_ptr parse_primary() {
    skip_blanks();
    if (m_pos >= m_text.size()) fail("unexpected end");
    const char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      node_ptr inner = parse_binary(0);
      skip_blanks();
      if (m_pos >= m_text.size() || m_text[m_pos] != ')') fail("missing ')'");
      ++m_pos;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(m_text.substr(m_pos), &used);
      } catch (const std::out_of_range&) {
        fail("a number beyond 64 bits");
      }
      m_pos += used;
      return std::make_shared<node>(node{node::type::number, v, {}, nullptr, nullptr});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = m_pos;
      while (m_pos < m_text.size() &&
             (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
        ++m_pos;
      }
      return std::make_shared<node>(
          node{node::type::name, 0, m_text.substr(start, m_pos - start), nullptr, nullptr});
    }
    fail(std::string("unexpected '") + c + "'");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(what + " at column " + std::to_string(m_pos + 1) + " of \"" +
                                m_text + "\"");
  }

  const std::string& m_text;
  std::size_t m_pos = 0;
};

long long eval(const node& n, const std::map<std::string, long long>& values) {
  switch (n.kind) {
    case node::type::number:
      return n.number;
    case node::type::name: {
      const auto it = values.find(n.text);
      if (it == values.end()) throw std::invalid_argument("unknown name '" + n.text + "'");
      return it->second;
    }
    case node::type::unary: {
      const long long v = eval(*n.lhs, values);
      return n.text == "!" ? !v : -v;
    }
    case node::type::binary:
      break;
  }
  const std::string& op = n.text;
  const long long a = eval(*n.lhs, values);
  if (op == "&&") return a ? eval(*n.rhs, values) != 0 : 0;
  if (op == "||") return a ? 1 : eval(*n.rhs, values) != 0;
  const long long b = eval(*n.rhs, values);
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/" || op == "%") {
    if (b == 0) throw division_by_zero{};
    return op == "/" ? a / b : a % b;
  }
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  return a >= b;
}

void collect_names(const node& n, std::vector<std::string>& out) {
  if (n.kind == node::type::name) out.push_back(n.text);
  if (n.lhs) collect_names(*n.lhs, out);
  if (n.rhs) collect_names(*n.rhs, out);
}

}  // namespace

expression expression::parse(const std::string& text) {
  expression e;
  e.m_text = text;
  e.m_root = parser(e.m_text).parse_all();
  return e;
}

long long expression::evaluate(const std::map<std::string, long long>& values) const {
  try {
    return eval(*m_root, values);
  } catch (const division_by_zero&) {
    return 0;
  }
}

std::vector<std::string> expression::names() const {
  std::vector<std::string> out;
  collect_names(*m_root, out);
  return out;
}

}  // namespace kk3::space
