#pragma once
// Sortable HTML tables for the report: the page's inline script sorts a table by a header click,
// by each cell's data-v (numbers) or its text; without the script the rows keep the order given.
#include <string>
#include <vector>

namespace kk3::report {

/// One cell: its HTML (already escaped) and, for numeric columns, the value sorted by.
struct html_cell {
  std::string html;
  double sort_value = 0;
  bool has_sort_value = false;
};

/// A cell of plain text (escaped here).
html_cell text_cell(const std::string& text);
/// A cell of a variant id (escaped, monospace), with an optional badge such as "winner".
html_cell variant_cell(const std::string& variant, const std::string& badge = "");
/// A numeric cell shown as `text`, sorted by `value`.
html_cell number_cell(double value, const std::string& text);

/// A column: its title, whether it holds numbers (right-aligned) and a hover explanation.
struct html_column {
  std::string title;
  bool numeric = false;
  std::string tip;
};

/// A table with a header row; `render` gives <table class="sortable">...</table>.
class html_table {
 public:
  explicit html_table(std::vector<html_column> columns) : m_columns(std::move(columns)) {}
  void add_row(std::vector<html_cell> cells, const std::string& row_class = "");
  std::size_t rows() const { return m_rows.size(); }
  std::string render() const;

 private:
  std::vector<html_column> m_columns;
  std::vector<std::pair<std::string, std::vector<html_cell>>> m_rows;
};

}  // namespace kk3::report
