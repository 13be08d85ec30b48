#include "report/html_table.hpp"

#include "report/svg_plot.hpp"

namespace kk3::report {

html_cell text_cell(const std::string& text) {
  return {html_escape(text), 0, false};
}

html_cell variant_cell(const std::string& variant, const std::string& badge) {
  html_cell c{"<code>" + html_escape(variant) + "</code>", 0, false};
  if (!badge.empty()) c.html += " <span class=\"badge\">" + html_escape(badge) + "</span>";
  return c;
}

html_cell number_cell(double value, const std::string& text) {
  return {html_escape(text), value, true};
}

void html_table::add_row(std::vector<html_cell> cells, const std::string& row_class) {
  cells.resize(m_columns.size());
  m_rows.emplace_back(row_class, std::move(cells));
}

std::string html_table::render() const {
  std::string out = "<table class=\"sortable\">\n<thead><tr>";
  for (const html_column& c : m_columns) {
    out += "<th";
    if (c.numeric) out += " class=\"num\"";
    out += " title=\"" + html_escape(c.tip.empty() ? "click to sort" : c.tip + " (click to sort)") +
           "\">" + html_escape(c.title) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& [cls, cells] : m_rows) {
    out += cls.empty() ? "<tr>" : "<tr class=\"" + html_escape(cls) + "\">";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const html_cell& c = cells[i];
      out += "<td";
      if (m_columns[i].numeric) out += " class=\"num\"";
      if (c.has_sort_value) out += " data-v=\"" + format_sig(c.sort_value, 9) + "\"";
      out += ">" + c.html + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace kk3::report
