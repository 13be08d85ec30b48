#pragma once
// Internal to the HTML report: the sections of a sweep page and of a time page, and the number
// formats they share (html_report.cpp assembles the page around them).
#include <string>
#include <vector>

#include "families/registry.hpp"
#include "report/html_table.hpp"
#include "results/codec.hpp"
#include "results/reader.hpp"

namespace kk3::report::html {

/// A section of the page with an anchor for the table of contents.
struct page_section {
  std::string anchor;  ///< id of its <section>
  std::string title;   ///< for the table of contents
  std::string html;
};

/// The body of a sweep page: summary first, then one section per family x mode x model shape.
struct page_body {
  std::string summary_html;
  std::vector<page_section> sections;
  int plots = 0;
};

page_body sweep_body(const results::result_set& doc);
page_body time_body(const results::result_set& doc);
/// An untimed sweep's page (compiled only, no GPU): its resources per variant and arch.
page_body resources_body(const results::result_set& doc);

/// Whether a record carries a time (statistics with a positive median).
bool timed(const results::record* r);
/// "12.35" (µs, 4 significant digits)
std::string fmt_us(double us);
/// "41.2%" of a fraction
std::string fmt_pct(double fraction);
/// The hover text of a record: variant, shape, median, spread, samples, status.
std::string record_title(const results::record& r);
/// The timing columns of a records table: median, p10, p90 (and min, `with_min`), noise, samples,
/// TB/s and % of the ceiling (`ceiling_note` its hover text), and a record's cells under them.
std::vector<html_column> timing_columns(bool with_min, const std::string& ceiling_note);
std::vector<html_cell> timing_cells(const results::record& r, bool with_min);

/// The i-th colour of the categorical palette (cycles).
const char* palette_color(std::size_t i);

}  // namespace kk3::report::html
