// The page of a `kk3tune time --json` file: one shape, many variants: a bar chart of the medians
// (fastest first, p10-p90 whiskers) beside the bandwidth, and a table.
#include <algorithm>
#include <map>

#include "report/html_sections.hpp"
#include "report/html_table.hpp"
#include "report/svg_plot.hpp"

namespace kk3::report::html {
namespace {

constexpr const char* k_fastest_color = "#2f9e44";
constexpr const char* k_reference_color = "#44337a";
constexpr const char* k_other_color = "#7b9acc";

struct shape_group {
  std::string title;
  std::vector<const results::record*> records;
};

std::string group_title(const results::record& r) {
  const std::string shape = families::shape_text(r.shape);
  return r.family + " · " + r.mode + " · T=" + std::to_string(r.tokens) +
         (shape.empty() ? "" : " · " + shape) +
         (r.timing_mode.empty() ? "" : " · " + r.timing_mode);
}

std::string bar_plot(const shape_group& g, bool fraction) {
  bar_chart c;
  c.title = "Median time per call — " + g.title;
  c.value_label = "median time per call (µs), whiskers p10–p90";
  c.value2_label = fraction ? "share of the bandwidth ceiling" : "achieved bandwidth (TB/s)";
  c.value2_suffix = fraction ? "%" : "";
  std::size_t n_timed = 0;
  for (const results::record* r : g.records) n_timed += timed(r);
  c.subtitle = std::to_string(n_timed) + " variants, fastest first";
  bool first = true;
  bool any_ref = false, fastest_is_ref = false;
  for (const results::record* r : g.records) {
    if (!timed(r)) continue;
    const results::sample_stats& s = *r->stats;
    bar_row row;
    row.label = r->variant;
    row.value = s.median;
    row.lo = s.p10;
    row.hi = s.p90;
    row.color = first ? k_fastest_color : r->reference ? k_reference_color : k_other_color;
    any_ref = any_ref || (r->reference && !first);
    fastest_is_ref = fastest_is_ref || (r->reference && first);
    row.value_text = fmt_us(s.median);
    row.title = record_title(*r);
    row.value2 = fraction ? r->fraction_of_ceiling * 100 : r->achieved_tb_s;
    row.value2_text = fraction ? fmt_pct(r->fraction_of_ceiling) : format_sig(r->achieved_tb_s, 3);
    c.rows.push_back(std::move(row));
    first = false;
  }
  c.legend.push_back({{k_fastest_color, 8, 1, "", 0},
                      fastest_is_ref ? "fastest (the reference variant)" : "fastest",
                      ""});
  if (any_ref) c.legend.push_back({{k_reference_color, 8, 1, "", 0}, "reference variant", ""});
  c.legend.push_back({{k_other_color, 8, 1, "", 0}, "other variants", ""});
  c.legend.push_back({{"#111827", 1, 1, "", 0}, "p10 – p90 of the samples", ""});
  return render_bar_chart(c);
}

std::string variants_table(const shape_group& g) {
  const results::record* fastest = nullptr;
  const results::record* reference = nullptr;
  for (const results::record* r : g.records) {
    if (timed(r) && !fastest) fastest = r;
    if (timed(r) && r->reference && !reference) reference = r;
  }
  std::vector<html_column> columns = {{"#", true, "rank by median"}, {"variant", false, ""}};
  for (html_column& c :
       timing_columns(true, "share of the bandwidth ceiling (0 when none was given)"))
    columns.push_back(std::move(c));
  columns.push_back({"vs fastest", true, "median / fastest median"});
  columns.push_back({"vs reference", true, "reference median / median"});
  html_table t(std::move(columns));
  std::size_t rank = 0;
  for (const results::record* r : g.records) {
    const bool s = timed(r);
    const results::sample_stats st = s ? *r->stats : results::sample_stats{};
    ++rank;
    std::string badge = r->reference ? "reference" : "";
    if (r == fastest) badge = badge.empty() ? "fastest" : "fastest · reference";
    const double vs_fast = s && fastest ? st.median / fastest->stats->median : 0;
    const double vs_ref = s && reference ? reference->stats->median / st.median : 0;
    std::vector<html_cell> cells = {number_cell(double(rank), std::to_string(rank)),
                                    variant_cell(r->variant, badge)};
    for (html_cell& c : timing_cells(*r, true)) cells.push_back(std::move(c));
    cells.push_back(vs_fast > 0 ? number_cell(vs_fast, format_sig(vs_fast, 4) + "×")
                                : text_cell("–"));
    cells.push_back(vs_ref > 0 ? number_cell(vs_ref, format_sig(vs_ref, 4) + "×") : text_cell("–"));
    t.add_row(std::move(cells), r == fastest                       ? "win"
                                : r->status != results::status::ok ? "bad"
                                                                   : "");
  }
  return t.render();
}

}  // namespace

page_body time_body(const results::result_set& doc) {
  page_body body;
  std::vector<shape_group> groups;
  std::map<std::string, std::size_t> index;
  for (const results::record& r : doc.records) {
    const std::string title = group_title(r);
    auto [it, fresh] = index.emplace(title, groups.size());
    if (fresh) groups.push_back({title, {}});
    groups[it->second].records.push_back(&r);
  }
  html_table summary({{"shape", false, "family · mode · tokens · model shape"},
                      {"variants", true, ""},
                      {"fastest", false, ""},
                      {"median µs", true, "the fastest variant's median"},
                      {"reference µs", true, "the reference variant's median"},
                      {"vs reference", true, "reference median / fastest median"},
                      {"slowest µs", true, ""}});
  for (std::size_t i = 0; i < groups.size(); ++i) {
    shape_group& g = groups[i];
    std::stable_sort(g.records.begin(), g.records.end(),
                     [](const results::record* a, const results::record* b) {
                       const double x = timed(a) ? a->stats->median : 1e300,
                                    y = timed(b) ? b->stats->median : 1e300;
                       return x < y;
                     });
    bool fraction = false;
    const results::record* ref = nullptr;
    const results::record* slowest = nullptr;
    for (const results::record* r : g.records) {
      fraction = fraction || r->fraction_of_ceiling > 0;
      if (r->reference && timed(r) && !ref) ref = r;
      if (timed(r)) slowest = r;
    }
    const results::record* fastest =
        !g.records.empty() && timed(g.records.front()) ? g.records.front() : nullptr;
    std::string anchor = "s" + std::to_string(i + 1);
    summary.add_row(
        {html_cell{"<a href=\"#" + anchor + "\">" + html_escape(g.title) + "</a>", 0, false},
         number_cell(double(g.records.size()), std::to_string(g.records.size())),
         fastest ? variant_cell(fastest->variant) : text_cell("–"),
         fastest ? number_cell(fastest->stats->median, fmt_us(fastest->stats->median))
                 : text_cell("–"),
         ref ? number_cell(ref->stats->median, fmt_us(ref->stats->median)) : text_cell("–"),
         ref && fastest
             ? number_cell(ref->stats->median / fastest->stats->median,
                           format_sig(ref->stats->median / fastest->stats->median, 4) + "×")
             : text_cell("–"),
         slowest ? number_cell(slowest->stats->median, fmt_us(slowest->stats->median))
                 : text_cell("–")});
    page_section s{anchor, g.title, ""};
    s.html += "<h2>" + html_escape(g.title) + "</h2>\n";
    if (fastest) {
      s.html += "<div class=\"fig\">" + bar_plot(g, fraction) + "</div>\n";
      ++body.plots;
    } else {
      s.html += "<p class=\"note\">No variant has timing statistics.</p>\n";
    }
    s.html += "<h3>Variants</h3>\n" + variants_table(g);
    body.sections.push_back(std::move(s));
  }
  body.summary_html = "<h2>Summary</h2>\n" + summary.render();
  return body;
}

}  // namespace kk3::report::html
