#pragma once
// `kk3tune report`: one self-contained HTML page (inline CSS, a small inline script, SVG plots,
// no external resources) about a result file: the run's context, a summary, and for a sweep per
// family x mode x model shape the time per call of every variant against the token count with
// the chosen dispatch ranges, the winners' bandwidth, and sortable tables; for a `time` file a
// bar chart of the variants and a table. The same input gives the same bytes.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "results/reader.hpp"

namespace kk3::report {

/// The page and what it holds.
struct html_report {
  std::string html;
  int plots = 0;  ///< <svg> elements
};

/// Renders the page for a document as read by results::read_result_set.
[[nodiscard]] html_report render_html_report(const results::result_set& doc);

}  // namespace kk3::report
