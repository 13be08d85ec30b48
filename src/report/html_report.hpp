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

/// What the result model does not carry but the page's header shows: a sweep's plan, a time
/// file's subject seed and timing settings, as display text, in file order.
struct report_extras {
  std::vector<std::pair<std::string, std::string>> plan;     ///< sweeps: the "plan" block
  std::vector<std::pair<std::string, std::string>> subject;  ///< time files: seed, timing
};

/// Reads the extras from the result file; best effort: anything unreadable is left out.
report_extras read_report_extras(const std::filesystem::path& file);

/// The page and what it holds.
struct html_report {
  std::string html;
  int plots = 0;  ///< <svg> elements
};

/// Renders the page for a document as read by results::read_result_set.
html_report render_html_report(const results::result_set& doc, const report_extras& extras = {});

}  // namespace kk3::report
