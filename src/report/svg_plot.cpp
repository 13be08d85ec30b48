#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kk3::report {
namespace {

constexpr const char* k_font = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
constexpr const char* k_mono = "DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace";
constexpr int k_legend_row_px = 17;

/// A pixel coordinate: one decimal, no trailing ".0".
std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", std::round(v * 10) / 10 + 0.0);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

/// A rough width of `text` in pixels, for layout (no font metrics here).
double text_width(std::string_view text, double font_px, bool mono) {
  std::size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;  // UTF-8 code points
  return static_cast<double>(chars) * font_px * (mono ? 0.61 : 0.56);
}

/// Maps data units to pixels along one axis.
struct scale {
  const plot_axis& axis;
  double p0, p1;  // pixels of axis.lo and axis.hi
  double operator()(double v) const {
    double t;
    if (axis.log) {
      const double a = std::log10(axis.lo), b = std::log10(axis.hi);
      t = (std::log10(std::max(v, 1e-300)) - a) / (b - a);
    } else {
      t = (v - axis.lo) / (axis.hi - axis.lo);
    }
    return p0 + t * (p1 - p0);
  }
};

struct tick {
  double value;
  bool major;
  bool labelled;
};

/// The 1-2-5 step that gives about `target` intervals over `span`.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return step * mag;
}

/// Ticks of an axis; labels thinned so neighbours stay `min_gap_px` apart.
std::vector<tick> make_ticks(const scale& s, double min_gap_px) {
  std::vector<tick> ticks;
  const plot_axis& a = s.axis;
  if (!a.log) {
    const int target = std::clamp(static_cast<int>(std::abs(s.p1 - s.p0) / (min_gap_px * 2)), 2, 8);
    const double step = nice_step(a.hi - a.lo, target);
    for (double v = std::ceil(a.lo / step - 1e-9) * step; v <= a.hi * (1 + 1e-9) + 1e-12;
         v += step) {
      ticks.push_back({std::abs(v) < step * 1e-9 ? 0.0 : v, true, true});
    }
    return ticks;
  }
  // Log: every m * 10^d inside the range; labels on the decades, then (if fewer than three
  // fit) also on 2 and 5, then on every minor tick, as long as they stay apart.
  std::vector<int> mantissa;
  const int d0 = static_cast<int>(std::floor(std::log10(a.lo))) - 1;
  const int d1 = static_cast<int>(std::ceil(std::log10(a.hi))) + 1;
  for (int d = d0; d <= d1; ++d) {
    for (int m = 1; m <= 9; ++m) {
      const double v = m * std::pow(10.0, d);
      if (v < a.lo * (1 - 1e-9) || v > a.hi * (1 + 1e-9)) continue;
      ticks.push_back({v, m == 1, false});
      mantissa.push_back(m);
    }
  }
  auto tier_of = [](int m) { return m == 1 ? 0 : (m == 2 || m == 5) ? 1 : 2; };
  int chosen = 0;
  for (int tier = 0; tier <= 2; ++tier) {
    double last = -1e9;
    int count = 0;
    bool apart = true;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      if (tier_of(mantissa[i]) > tier) continue;
      const double p = s(ticks[i].value);
      if (count > 0 && std::abs(p - last) < min_gap_px) apart = false;
      last = p;
      ++count;
    }
    if (!apart) break;
    chosen = tier;
    if (count >= 3) break;
  }
  for (std::size_t i = 0; i < ticks.size(); ++i) ticks[i].labelled = tier_of(mantissa[i]) <= chosen;
  return ticks;
}

std::string style_attrs(const line_style& st) {
  std::string out = " fill=\"none\" stroke=\"" + html_escape(st.color) + "\" stroke-width=\"" +
                    format_sig(st.width_px, 3) + "\"";
  if (st.opacity < 1) out += " stroke-opacity=\"" + format_sig(st.opacity, 2) + "\"";
  if (!st.dash.empty()) out += " stroke-dasharray=\"" + html_escape(st.dash) + "\"";
  return out;
}

std::string text_el(double x, double y, std::string_view text, const char* anchor, double font_px,
                    const std::string& extra = "") {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" text-anchor=\"" + anchor +
         "\" font-size=\"" + format_sig(font_px, 3) + "\"" + extra + ">" + html_escape(text) +
         "</text>";
}

std::string svg_open(int width, double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" +
         std::to_string(width) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " +
         std::to_string(width) + " " + px(height) + "\" font-family=\"" + k_font +
         "\" role=\"img\" aria-label=\"" + html_escape(title) + "\">\n<title>" +
         html_escape(title) + "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
}

std::string header(const std::string& title, const std::string& subtitle, double x) {
  std::string out = text_el(x, 20, title, "start", 15, " font-weight=\"bold\" fill=\"#111827\"");
  if (!subtitle.empty()) out += text_el(x, 38, subtitle, "start", 12, " fill=\"#4b5563\"");
  return out + "\n";
}

/// The legend rows from `top`; returns the height used.
double legend_rows(const std::vector<legend_item>& items, double x, double top, std::string& out) {
  if (items.empty()) return 0;
  double role_w = 0;
  for (const legend_item& it : items) role_w = std::max(role_w, text_width(it.role, 12, false));
  role_w = std::min(role_w, 420.0);
  out += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const legend_item& it = items[i];
    const double cy = top + k_legend_row_px * static_cast<double>(i) + k_legend_row_px / 2.0;
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(cy) + "\" x2=\"" + px(x + 30) + "\" y2=\"" +
           px(cy) + "\"" + style_attrs(it.style) + "/>";
    if (it.style.marker_r_px > 0) {
      out += "<circle cx=\"" + px(x + 15) + "\" cy=\"" + px(cy) + "\" r=\"" +
             format_sig(it.style.marker_r_px, 3) + "\" fill=\"" + html_escape(it.style.color) +
             "\"/>";
    }
    out += text_el(x + 38, cy + 4, it.role, "start", 12, " fill=\"#111827\"");
    if (!it.text.empty()) {
      out += text_el(x + 46 + role_w, cy + 4, it.text, "start", 11.5,
                     std::string(" font-family=\"") + k_mono + "\" fill=\"#1f2937\"");
    }
    out += "\n";
  }
  out += "</g>\n";
  return k_legend_row_px * static_cast<double>(items.size());
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_sig(double value, int digits) {
  if (!std::isfinite(value)) return value != value ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";
  char buf[64];
  const double a = std::abs(value);
  if (a >= std::pow(10.0, digits)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  }
  return buf;
}

bool line_style::operator==(const line_style& o) const {
  return color == o.color && width_px == o.width_px && opacity == o.opacity && dash == o.dash &&
         marker_r_px == o.marker_r_px;
}

void log_axis_range(double lo, double hi, double pad, plot_axis& axis) {
  if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
  if (!(hi > 0)) hi = lo * 10;
  axis.log = true;
  axis.lo = lo / pad;
  axis.hi = hi * pad;
}

void linear_axis_from_zero(double hi, double min_hi, plot_axis& axis) {
  hi = std::max(hi, min_hi);
  if (!(hi > 0)) hi = 1;
  const double step = nice_step(hi * 1.08, 6);
  axis.log = false;
  axis.lo = 0;
  axis.hi = std::ceil(hi * 1.08 / step - 1e-9) * step;
}

/// The grid and the axes' ticks into `out`; their labels, drawn later above the series, into
/// `labels`. The plot area is what the scales span: x from sx.p0 to sx.p1, y from sy.p1 (top) to
/// sy.p0 (bottom).
void grid_and_ticks(const scale& sx, const scale& sy, std::string& out, std::string& labels) {
  const double x0 = sx.p0, x1 = sx.p1, y0 = sy.p1, y1 = sy.p0;
  const std::vector<tick> xt = make_ticks(sx, 34), yt = make_ticks(sy, 18);
  std::string grid = "<g stroke-width=\"1\">\n";
  for (const tick& t : xt) {
    const double x = sx(t.value);
    grid += "<line x1=\"" + px(x) + "\" y1=\"" + px(y0) + "\" x2=\"" + px(x) + "\" y2=\"" + px(y1) +
            "\" stroke=\"" + (t.major ? "#c9ced6" : "#e8ebef") + "\"/>";
    grid += "<line x1=\"" + px(x) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x) + "\" y2=\"" +
            px(y1 + (t.major ? 6 : 3)) + "\" stroke=\"#6b7280\"/>\n";
    if (t.labelled) {
      labels += text_el(x, y1 + 19, format_sig(t.value) + sx.axis.tick_suffix, "middle", 11.5,
                        " fill=\"#374151\"");
    }
  }
  for (const tick& t : yt) {
    const double y = sy(t.value);
    grid += "<line x1=\"" + px(x0) + "\" y1=\"" + px(y) + "\" x2=\"" + px(x1) + "\" y2=\"" + px(y) +
            "\" stroke=\"" + (t.major ? "#c9ced6" : "#e8ebef") + "\"/>";
    grid += "<line x1=\"" + px(x0 - (t.major ? 6 : 3)) + "\" y1=\"" + px(y) + "\" x2=\"" + px(x0) +
            "\" y2=\"" + px(y) + "\" stroke=\"#6b7280\"/>\n";
    if (t.labelled) {
      labels += text_el(x0 - 9, y + 4, format_sig(t.value) + sy.axis.tick_suffix, "end", 11.5,
                        " fill=\"#374151\"");
    }
  }
  out += grid + "</g>\n";
}

/// The bands' colour strips, their left borders and their labels (the shading is drawn first).
void band_overlays(const line_plot& p, const std::vector<std::pair<double, double>>& band_px,
                   double x0, double y0, double y1, std::string& out) {
  for (std::size_t i = 0; i < p.bands.size(); ++i) {
    const x_band& b = p.bands[i];
    const auto [a, c] = band_px[i];
    if (c <= a) continue;
    if (!b.color.empty()) {
      out += "<rect x=\"" + px(a) + "\" y=\"" + px(y0) + "\" width=\"" + px(c - a) +
             "\" height=\"7\" fill=\"" + html_escape(b.color) + "\">";
      if (!b.title.empty()) out += "<title>" + html_escape(b.title) + "</title>";
      out += "</rect>\n";
    }
    if (a > x0 + 0.5) {
      out += "<line x1=\"" + px(a) + "\" y1=\"" + px(y0 - 14) + "\" x2=\"" + px(a) + "\" y2=\"" +
             px(y1) + "\" stroke=\"#4b5563\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n";
    }
    if (!b.label.empty() && text_width(b.label, 10.5, false) <= c - a - 3) {
      out += text_el((a + c) / 2, y0 - 4, b.label, "middle", 10.5, " fill=\"#374151\"") + "\n";
    }
  }
}

/// The series, grouped by style: lines first, then markers, so each group is one <g>.
void series_groups(const line_plot& p, const scale& sx, const scale& sy, std::string& out) {
  for (std::size_t i = 0; i < p.series.size();) {
    std::size_t j = i;
    while (j < p.series.size() && p.series[j].style == p.series[i].style) ++j;
    const line_style& st = p.series[i].style;
    std::string lines = "<g" + style_attrs(st) + " stroke-linejoin=\"round\">\n", marks;
    for (std::size_t k = i; k < j; ++k) {
      const line_series& s = p.series[k];
      if (s.points.size() >= 2) {
        lines += "<polyline points=\"";
        for (std::size_t q = 0; q < s.points.size(); ++q) {
          if (q) lines += ' ';
          lines += px(sx(s.points[q].x)) + "," + px(sy(s.points[q].y));
        }
        lines += "\">";
        if (!s.title.empty()) lines += "<title>" + html_escape(s.title) + "</title>";
        lines += "</polyline>\n";
      }
      const double r = st.marker_r_px > 0 ? st.marker_r_px
                                          : (s.points.size() == 1 ? std::max(1.5, st.width_px) : 0);
      if (r <= 0) continue;
      for (const plot_point& q : s.points) {
        marks += "<circle cx=\"" + px(sx(q.x)) + "\" cy=\"" + px(sy(q.y)) + "\" r=\"" +
                 format_sig(r, 3) + "\">";
        const std::string& t = q.title.empty() ? s.title : q.title;
        if (!t.empty()) marks += "<title>" + html_escape(t) + "</title>";
        marks += "</circle>\n";
      }
    }
    out += lines + "</g>\n";
    if (!marks.empty()) {
      out += "<g fill=\"" + html_escape(st.color) + "\"";
      if (st.opacity < 1) out += " fill-opacity=\"" + format_sig(st.opacity, 2) + "\"";
      out += st.marker_r_px >= 3 ? " stroke=\"#ffffff\" stroke-width=\"1\">\n" : ">\n";
      out += marks + "</g>\n";
    }
    i = j;
  }
}

std::string render_line_plot(const line_plot& p) {
  const double left = 74, right = 24;
  const double x0 = left, x1 = p.width_px - right;
  bool band_labels = false;
  for (const x_band& b : p.bands) band_labels = band_labels || !b.label.empty();
  const double y0 = (p.subtitle.empty() ? 34 : 52) + (band_labels ? 16 : 4);
  const double y1 = y0 + p.plot_height_px;
  const scale sx{p.x, x0, x1}, sy{p.y, y1, y0};
  const double legend_top = y1 + 50;
  const double height = legend_top + k_legend_row_px * static_cast<double>(p.legend.size()) + 10;

  std::string out = svg_open(p.width_px, height, p.title);
  out += header(p.title, p.subtitle, 12);

  // Bands: shading, then (after the grid) strips, borders and labels.
  std::vector<std::pair<double, double>> band_px;
  for (const x_band& b : p.bands) {
    const double a = std::clamp(sx(std::max(b.x_lo, p.x.lo)), x0, x1);
    const double c = std::clamp(sx(std::min(b.x_hi, p.x.hi)), x0, x1);
    band_px.emplace_back(a, c);
    if (b.shaded && c > a) {
      out += "<rect x=\"" + px(a) + "\" y=\"" + px(y0) + "\" width=\"" + px(c - a) +
             "\" height=\"" + px(y1 - y0) + "\" fill=\"#f1f3f6\"/>\n";
    }
  }

  // Grid and ticks; their labels come after the series.
  std::string labels;
  grid_and_ticks(sx, sy, out, labels);

  band_overlays(p, band_px, x0, y0, y1, out);

  series_groups(p, sx, sy, out);

  // Frame, tick labels, axis titles, legend.
  out += "<rect x=\"" + px(x0) + "\" y=\"" + px(y0) + "\" width=\"" + px(x1 - x0) + "\" height=\"" +
         px(y1 - y0) + "\" fill=\"none\" stroke=\"#6b7280\" stroke-width=\"1\"/>\n";
  out += labels + "\n";
  out += text_el((x0 + x1) / 2, y1 + 38, p.x.label, "middle", 12.5, " fill=\"#111827\"") + "\n";
  const double ym = (y0 + y1) / 2;
  out += text_el(18, ym, p.y.label, "middle", 12.5,
                 " fill=\"#111827\" transform=\"rotate(-90 18 " + px(ym) + ")\"") +
         "\n";
  legend_rows(p.legend, x0, legend_top, out);
  return out + "</svg>\n";
}

/// A bar chart column's grid lines and tick labels (below the rows too when they are many).
void bar_grid(const scale& s, double top, double bottom, std::size_t n, std::string& out) {
  for (const tick& t : make_ticks(s, 40)) {
    const double x = s(t.value);
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top - 4) + "\" x2=\"" + px(x) + "\" y2=\"" +
           px(bottom) + "\" stroke=\"#d5d9e0\"/>";
    out += text_el(x, top - 7, format_sig(t.value) + s.axis.tick_suffix, "middle", 10.5,
                   " fill=\"#374151\"");
    if (n > 40) {
      out += text_el(x, bottom + 14, format_sig(t.value) + s.axis.tick_suffix, "middle", 10.5,
                     " fill=\"#374151\"");
    }
    out += "\n";
  }
}

/// Where a bar chart's rows sit; the columns are where their scales put them (s1 and s2 of
/// bar_row_svg).
struct bar_layout {
  double row_h, font, top;
  bool second;
};

/// Row i of a bar chart: its label (right-aligned before the first column), its bar (cut past the
/// first axis's end, else with its spread), its value, and its second column's bar.
void bar_row_svg(const bar_row& r, std::size_t i, const bar_layout& l, const scale& s1,
                 const scale& s2, std::string& out) {
  const double y = l.top + l.row_h * static_cast<double>(i);
  const double cy = y + l.row_h / 2;
  const double bar_h = l.row_h * 0.62;
  out += "<g>";
  if (!r.title.empty()) out += "<title>" + html_escape(r.title) + "</title>";
  out += text_el(s1.p0 - 8, cy + l.font * 0.35, r.label, "end", l.font,
                 std::string(" font-family=\"") + k_mono + "\" fill=\"#111827\"");
  const double bar_end = std::min(s1(r.value), s1.p1);
  out += "<rect x=\"" + px(s1.p0) + "\" y=\"" + px(cy - bar_h / 2) + "\" width=\"" +
         px(std::max(0.0, bar_end - s1.p0)) + "\" height=\"" + px(bar_h) + "\" fill=\"" +
         html_escape(r.color) + "\"/>";
  double end = bar_end;
  if (r.value > s1.axis.hi) {
    for (double dx : {-9.0, -5.0}) {
      out += "<path d=\"M" + px(bar_end + dx) + " " + px(cy + bar_h / 2 + 1) + "l4 " +
             px(-bar_h - 2) + "\" stroke=\"#ffffff\" stroke-width=\"1.6\"/>";
    }
  } else if (r.hi > r.lo) {
    const double a = s1(r.lo), b = std::min(s1(r.hi), s1.p1), cap = bar_h * 0.45;
    out += "<path d=\"M" + px(a) + " " + px(cy) + "H" + px(b) + "M" + px(a) + " " + px(cy - cap) +
           "V" + px(cy + cap) + "M" + px(b) + " " + px(cy - cap) + "V" + px(cy + cap) +
           "\" stroke=\"#111827\" stroke-width=\"1\" fill=\"none\"/>";
    end = std::max(end, b);
  }
  out += text_el(end + 4, cy + l.font * 0.35, r.value_text, "start", l.font, " fill=\"#374151\"");
  if (l.second && r.value2 > 0) {
    out += "<rect x=\"" + px(s2.p0) + "\" y=\"" + px(cy - bar_h / 2) + "\" width=\"" +
           px(std::max(0.0, s2(r.value2) - s2.p0)) + "\" height=\"" + px(bar_h) +
           "\" fill=\"#0f766e\" fill-opacity=\"0.75\"/>";
    out += text_el(s2(r.value2) + 4, cy + l.font * 0.35, r.value2_text, "start", l.font,
                   " fill=\"#374151\"");
  }
  out += "</g>\n";
}

std::string render_bar_chart(const bar_chart& c) {
  const std::size_t n = c.rows.size();
  const double row_h = n <= 40 ? 18 : n <= 120 ? 13 : 11;
  const double font = n <= 40 ? 11.5 : n <= 120 ? 10 : 9;
  double label_w = 0;
  for (const bar_row& r : c.rows) label_w = std::max(label_w, text_width(r.label, font, true));
  label_w = std::min(label_w, 560.0);
  const bool second = !c.value2_label.empty();
  const double col2_w = second ? 170 : 0;
  const double left = 12 + label_w + 10;
  const double value_room = 64;
  const double col1_x0 = left, col1_x1 = c.width_px - 20 - col2_w - (second ? 24 : 0) - value_room;
  const double col2_x0 = col1_x1 + value_room + 24, col2_x1 = col2_x0 + col2_w - 40;

  double hi = 0, hi2 = 0;
  std::vector<double> values;
  for (const bar_row& r : c.rows) {
    hi = std::max({hi, r.value, r.hi});
    hi2 = std::max(hi2, r.value2);
    values.push_back(r.value);
  }
  // A few very slow rows would squeeze the rest into a corner: the axis stops at twice the
  // upper quartile and longer bars end in a cut mark.
  double limit = hi;
  if (values.size() >= 4) {
    const std::size_t q = values.size() * 3 / 4;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(q), values.end());
    limit = std::min(hi, 2 * values[q]);
  }
  plot_axis a1, a2;
  linear_axis_from_zero(limit, 0, a1);
  linear_axis_from_zero(hi2, 0, a2);
  a2.tick_suffix = c.value2_suffix;
  const scale s1{a1, col1_x0, col1_x1}, s2{a2, col2_x0, col2_x1};

  const double top = (c.subtitle.empty() ? 34 : 52) + 34;
  const double bottom = top + row_h * static_cast<double>(n);
  const double legend_top = bottom + 30;
  const double height = legend_top + k_legend_row_px * static_cast<double>(c.legend.size()) + 10;

  std::string out = svg_open(c.width_px, height, c.title);
  out +=
      header(c.title,
             c.subtitle + (limit < hi ? "; bars past " + format_sig(a1.hi) + " cut (//)" : ""), 12);
  out += text_el(col1_x0, top - 22, c.value_label, "start", 12,
                 " font-weight=\"bold\" fill=\"#111827\"");
  if (second) {
    out += text_el(col2_x0, top - 22, c.value2_label, "start", 12,
                   " font-weight=\"bold\" fill=\"#111827\"");
  }
  out += "\n";
  for (std::size_t i = 1; i < n; i += 2) {
    out += "<rect x=\"4\" y=\"" + px(top + row_h * static_cast<double>(i)) + "\" width=\"" +
           std::to_string(c.width_px - 8) + "\" height=\"" + px(row_h) + "\" fill=\"#f5f6f8\"/>";
  }
  out += "\n<g stroke-width=\"1\">\n";
  bar_grid(s1, top, bottom, n, out);
  if (second) bar_grid(s2, top, bottom, n, out);
  out += "</g>\n";

  const bar_layout layout{row_h, font, top, second};
  for (std::size_t i = 0; i < n; ++i) bar_row_svg(c.rows[i], i, layout, s1, s2, out);
  out += "<line x1=\"" + px(col1_x0) + "\" y1=\"" + px(top - 4) + "\" x2=\"" + px(col1_x0) +
         "\" y2=\"" + px(bottom) + "\" stroke=\"#6b7280\"/>\n";
  if (second) {
    out += "<line x1=\"" + px(col2_x0) + "\" y1=\"" + px(top - 4) + "\" x2=\"" + px(col2_x0) +
           "\" y2=\"" + px(bottom) + "\" stroke=\"#6b7280\"/>\n";
  }
  legend_rows(c.legend, 12, legend_top, out);
  return out + "</svg>\n";
}

}  // namespace kk3::report
