#pragma once
// A plain-text table with aligned columns, for the summaries the tool prints (the CLI's, the
// sweep's).
#include <ostream>
#include <string>
#include <vector>

namespace kk3 {

/// Rows of cells printed with each column padded to its widest cell; numbers are best passed
/// already formatted (format_double, core/text.hpp). Columns listed in `right_aligned` are padded
/// on the left.
class text_table {
 public:
  explicit text_table(std::vector<std::string> header, std::vector<bool> right_aligned = {})
      : m_header(std::move(header)), m_right(std::move(right_aligned)) {
    m_right.resize(m_header.size(), false);
  }
  void add_row(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
  bool empty() const { return m_rows.empty(); }

  void print(std::ostream& out) const {
    std::vector<std::size_t> width(m_header.size(), 0);
    auto widen = [&](const std::vector<std::string>& row) {
      for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
        width[c] = std::max(width[c], row[c].size());
    };
    widen(m_header);
    for (const auto& row : m_rows) widen(row);
    auto line = [&](const std::vector<std::string>& row) {
      for (std::size_t c = 0; c < width.size(); ++c) {
        const std::string cell = c < row.size() ? row[c] : "";
        const std::string pad(width[c] - cell.size(), ' ');
        out << (c ? "  " : "")
            << (m_right[c] ? pad + cell : (c + 1 < width.size() ? cell + pad : cell));
      }
      out << '\n';
    };
    line(m_header);
    for (const auto& row : m_rows) line(row);
  }

 private:
  std::vector<std::string> m_header;
  std::vector<bool> m_right;
  std::vector<std::vector<std::string>> m_rows;
};

}  // namespace kk3
