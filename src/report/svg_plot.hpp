#pragma once
// SVG plots for the HTML report (`kk3tune report`): line plots on log or linear axes with decade
// ticks, x bands (dispatch ranges) and a legend; horizontal bar charts with whiskers. The output
// is plain SVG text with its styles as presentation attributes, so a plot copied out of the page
// still looks the same; every number is rounded (coordinates to 0.1 px, values to 4 significant
// digits), so the same input gives the same bytes.
#include <string>
#include <string_view>
#include <vector>

namespace kk3::report {

/// Escapes text for HTML and SVG text and attribute values (& < > " ').
std::string html_escape(std::string_view text);

/// A number with at most `digits` significant digits and no exponent between 1e-4 and any large
/// value ("8192", "12.35", "0.001234"); "0" for zero.
std::string format_sig(double value, int digits = 4);

/// One axis of a line plot.
struct plot_axis {
  bool log = true;          ///< logarithmic (decade ticks) or linear (1-2-5 steps)
  double lo = 1, hi = 10;   ///< the visible range in data units (positive on a log axis)
  std::string label;        ///< the axis title, e.g. "time per call (µs)"
  std::string tick_suffix;  ///< appended to each tick label, e.g. "%"
};

/// How a line series is drawn.
struct line_style {
  std::string color = "#555555";  ///< stroke and marker colour
  double width_px = 1;            ///< stroke width
  double opacity = 1;             ///< stroke and marker opacity
  std::string dash;               ///< stroke-dasharray; empty: solid
  double marker_r_px = 0;         ///< radius of a circle at each point; 0: none
  bool operator==(const line_style& o) const;
  bool operator!=(const line_style& o) const { return !(*this == o); }
};

/// One point of a series, in data units.
struct plot_point {
  double x = 0, y = 0;
  std::string title;  ///< hover text of its marker (only drawn with markers)
};

/// A polyline through its points (a lone point draws a dot).
struct line_series {
  line_style style;
  std::vector<plot_point> points;
  std::string title;  ///< hover text of the whole line; empty: none
};

/// A stretch of the x axis, e.g. one dispatch range.
struct x_band {
  double x_lo = 0, x_hi = 0;  ///< its borders in data units (clipped to the axis)
  std::string label;          ///< shown above the plot area when it fits
  std::string color;          ///< a strip of this colour along the top of the plot area
  bool shaded = false;        ///< a light background behind the data
  std::string title;          ///< hover text of the strip
};

/// One row of the legend under the plot.
struct legend_item {
  line_style style;  ///< the swatch
  std::string role;  ///< e.g. "winner T 1–16"
  std::string text;  ///< e.g. the variant id (monospace)
};

/// A line plot: axes, bands, series drawn in order (later ones on top) and a legend.
struct line_plot {
  std::string title;     ///< above the plot
  std::string subtitle;  ///< a smaller line under the title
  plot_axis x, y;
  std::vector<x_band> bands;
  std::vector<line_series> series;
  std::vector<legend_item> legend;
  int width_px = 1270;       ///< the whole SVG
  int plot_height_px = 430;  ///< the plot area
};

/// The plot as one <svg> element.
std::string render_line_plot(const line_plot& plot);

/// The range to show for data from `lo` to `hi` on a log axis: widened by `pad` (a factor).
void log_axis_range(double lo, double hi, double pad, plot_axis& axis);
/// A linear axis from 0 to a round number above `hi` (at least `min_hi`).
void linear_axis_from_zero(double hi, double min_hi, plot_axis& axis);

/// One bar of a horizontal bar chart.
struct bar_row {
  std::string label;       ///< left of the bar (monospace), e.g. the variant id
  double value = 0;        ///< the bar's length in data units
  double lo = 0, hi = 0;   ///< a whisker from lo to hi; none when lo >= hi
  std::string color;       ///< the bar's fill
  std::string value_text;  ///< right of the whisker
  std::string title;       ///< hover text of the row
  double value2 = 0;       ///< the second column's bar (e.g. bandwidth); 0: none
  std::string value2_text;
};

/// Horizontal bars, one row each, in the given order, with a second, narrower column of bars.
struct bar_chart {
  std::string title, subtitle;
  std::string value_label;    ///< the first column's axis title, e.g. "median time per call (µs)"
  std::string value2_label;   ///< the second column's; empty: no second column
  std::string value2_suffix;  ///< its tick suffix, e.g. "%"
  std::vector<bar_row> rows;
  std::vector<legend_item> legend;
  int width_px = 1270;
};

/// The chart as one <svg> element.
std::string render_bar_chart(const bar_chart& chart);

}  // namespace kk3::report
