// The sweep page: per family x mode x model shape, time per call against the token count for
// every variant (screened-out ones as a faint bundle, the final round more visibly, the
// reference, winners and runner-ups in colour) with the dispatch ranges over them, the winners'
// bandwidth, the dispatch table and the final-round records.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "report/html_sections.hpp"
#include "report/html_sweep_panel.hpp"
#include "report/html_table.hpp"
#include "report/svg_plot.hpp"

namespace kk3::report::html {
namespace {

using namespace sweep_page;

// The time plot's strokes: the unlabelled variants faint, their final rounds, failures.
constexpr const char* k_bundle_color = "#98a2b3";
constexpr const char* k_final_color = "#4f5f78";
constexpr const char* k_failed_color = "#dc2626";
const line_style k_bundle_style{k_bundle_color, 0.7, 0.3, "", 0};
const line_style k_finals_style{k_final_color, 1.1, 0.6, "", 2};
const line_style k_failed_style{k_failed_color, 1, 1, "", 3.2};

/// The time plot's frame: title, subtitle, log-log axes over the panel's times and token counts,
/// and one band per dispatch range.
line_plot time_plot_frame(const panel& p, const panel_model& m) {
  line_plot plot;
  plot.title = "Time per call against token count — " + panel_title(p);
  std::size_t dropped = 0, finals = 0;
  double lo = 0, hi = 0;
  for (const results::record* r : p.records) {
    if (!timed(r)) continue;
    lo = lo == 0 ? r->stats->median : std::min(lo, r->stats->median);
    hi = std::max(hi, r->stats->median);
  }
  for (const auto& [id, recs] : m.variants) {
    bool any_final = false;
    for (const results::record* r : recs)
      any_final = any_final || r->status != results::status::dropped;
    ++(any_final ? finals : dropped);
  }
  plot.subtitle = std::to_string(m.variants.size()) + " variants over " +
                  std::to_string(m.tokens.size()) + " token counts; " + std::to_string(finals) +
                  " reached a final round; median of each measurement, log-log";
  log_axis_range(static_cast<double>(m.tokens.front()), static_cast<double>(m.tokens.back()), 1.35,
                 plot.x);
  log_axis_range(lo, hi, 1.12, plot.y);
  plot.x.label = "tokens per call (T)";
  plot.y.label = "time per call (µs)";

  if (p.dispatch) {
    const auto& ranges = p.dispatch->ranges;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      x_band b;
      b.x_lo =
          i == 0 ? plot.x.lo : std::sqrt(double(ranges[i - 1].max_tokens) * ranges[i].min_tokens);
      b.x_hi = i + 1 == ranges.size()
                   ? plot.x.hi
                   : std::sqrt(double(ranges[i].max_tokens) * ranges[i + 1].min_tokens);
      b.label = range_label(ranges[i]);
      b.color = m.color.at(ranges[i].winner);
      b.shaded = i % 2 == 1;
      b.title = "range " + b.label + ": " + ranges[i].winner;
      plot.bands.push_back(b);
    }
  }
  return plot;
}

/// The variants without a label: all their points faint, their final-round stretches visible;
/// then every failed record as a marker.
void add_unlabelled_series(const panel& p, const panel_model& m, line_plot& plot) {
  for (const auto& [id, recs] : m.variants) {
    if (m.color.count(id)) continue;
    line_series s{k_bundle_style, {}, series_title(id, recs, "screened out where faint")};
    for (const results::record* r : recs) {
      if (timed(r)) s.points.push_back({double(r->tokens), r->stats->median, ""});
    }
    plot.series.push_back(std::move(s));
  }
  for (const auto& [id, recs] : m.variants) {
    if (m.color.count(id)) continue;
    line_series run{k_finals_style, {}, id + " (final round)"};
    auto flush = [&] {
      if (!run.points.empty()) plot.series.push_back(run);
      run.points.clear();
    };
    for (const results::record* r : recs) {
      if (timed(r) && r->status == results::status::ok) {
        run.points.push_back({double(r->tokens), r->stats->median, record_title(*r)});
      } else {
        flush();
      }
    }
    flush();
  }
  for (const results::record* r : p.records) {
    if (timed(r) && r->status != results::status::ok && r->status != results::status::dropped) {
      plot.series.push_back(
          {k_failed_style, {{double(r->tokens), r->stats->median, record_title(*r)}}, ""});
    }
  }
}

/// The labelled variants on top: runner-ups dashed, winners solid, the reference last.
void add_labelled_series(const panel_model& m, line_plot& plot) {
  for (int pass = 0; pass < 3; ++pass) {
    for (const std::string& id : m.labelled) {
      const bool is_ref = id == m.reference, is_win = m.won.count(id) > 0;
      if ((pass == 2) != is_ref || (!is_ref && (pass == 1) != is_win)) continue;
      line_style st{m.color.at(id), 1.6, 1, "5 3", 2.2};
      if (is_win) st = {m.color.at(id), 1.3, 0.85, "", 1.8};
      if (is_ref) st = {k_reference_color, 2, 1, "6 3", 2.4};
      line_series s{st, {}, ""};
      const auto it = m.variants.find(id);
      if (it == m.variants.end()) continue;
      s.title = series_title(id, it->second,
                             is_ref   ? "reference"
                             : is_win ? "winner"
                                      : "runner-up");
      for (const results::record* r : it->second) {
        if (timed(r)) s.points.push_back({double(r->tokens), r->stats->median, record_title(*r)});
      }
      plot.series.push_back(std::move(s));
    }
  }
}

/// The chosen winner per range on top of everything: a thick stroke with large markers.
void add_winner_strokes(const panel& p, const panel_model& m, line_plot& plot) {
  if (p.dispatch) {
    for (const select::range& rg : p.dispatch->ranges) {
      const std::string& c = m.color.at(rg.winner);
      line_series band{{c, 5.5, 0.9, "", 0}, {}, "winner " + range_label(rg) + ": " + rg.winner};
      line_series dots{{c, 1, 1, "", 4.2}, {}, ""};
      for (long long t : m.tokens) {
        if (t < rg.min_tokens || t > rg.max_tokens) continue;
        const results::record* r = record_at(m, rg.winner, t);
        if (!r || !timed(r)) continue;
        band.points.push_back({double(t), r->stats->median, ""});
        dots.points.push_back(
            {double(t), r->stats->median, "winner " + range_label(rg) + "\n" + record_title(*r)});
      }
      if (band.points.size() == 1) {
        // A range of one count: a short bar across it, so its winner shows as more than a dot.
        const plot_point q = band.points.front();
        band.points = {{q.x / 1.18, q.y, ""}, {q.x * 1.18, q.y, ""}};
      }
      if (!band.points.empty()) plot.series.push_back(std::move(band));
      plot.series.push_back(std::move(dots));
    }
  }
}

/// The legend: each labelled variant with its roles, then the other finalists and the rest.
void add_time_legend(const panel_model& m, line_plot& plot) {
  for (const std::string& id : m.labelled) {
    std::string role;
    if (id == m.reference) role = "reference";
    if (m.won.count(id))
      role += (role.empty() ? "" : " · ") + ("winner " + join_labels(m.won.at(id)));
    if (m.ran_up.count(id)) {
      role += (role.empty() ? "" : " · ") + ("runner-up " + join_labels(m.ran_up.at(id)));
    }
    line_style st{m.color.at(id), 1.6, 1, "5 3", 2.2};
    if (m.won.count(id)) st = {m.color.at(id), 5, 1, "", 3.6};
    if (id == m.reference) st = {k_reference_color, 2, 1, "6 3", 2.4};
    plot.legend.push_back({st, role, id});
  }
  std::size_t others = 0, other_finalists = 0;
  for (const auto& [id, recs] : m.variants) {
    if (m.color.count(id)) continue;
    ++others;
    other_finalists += std::any_of(recs.begin(), recs.end(), [](const results::record* r) {
      return r->status == results::status::ok;
    });
  }
  if (other_finalists > 0) {
    plot.legend.push_back({k_finals_style, "final round (ok)",
                           std::to_string(other_finalists) +
                               " other finalists, at the counts where they were final"});
  }
  if (others > 0) {
    plot.legend.push_back(
        {{k_bundle_color, 1.5, 0.6, "", 0},
         "screened out",
         std::to_string(others) + " other variants; 2-sample medians where eliminated"});
  }
}

std::string time_plot(const panel& p, const panel_model& m) {
  line_plot plot = time_plot_frame(p, m);
  add_unlabelled_series(p, m, plot);
  add_labelled_series(m, plot);
  add_winner_strokes(p, m, plot);
  add_time_legend(m, plot);
  return render_line_plot(plot);
}

std::string bandwidth_plot(const panel& p, const panel_model& m) {
  bool fraction = false;
  double ceiling = 0;
  for (const results::record* r : p.records) {
    if (r->fraction_of_ceiling > 0) {
      fraction = true;
      ceiling = r->achieved_tb_s / r->fraction_of_ceiling;
      break;
    }
  }
  auto value = [&](const results::record* r) {
    return fraction ? r->fraction_of_ceiling * 100 : r->achieved_tb_s;
  };
  line_plot plot;
  plot.title = (fraction ? "Fraction of the bandwidth ceiling — " : "Achieved bandwidth — ") +
               panel_title(p);
  plot.subtitle = fraction ? "bytes moved per call / time, as a share of the copy ceiling (" +
                                 format_sig(ceiling, 3) + " TB/s measured at the sweep's start)"
                           : "bytes moved per call / time";
  log_axis_range(double(m.tokens.front()), double(m.tokens.back()), 1.35, plot.x);
  plot.x.label = "tokens per call (T)";
  plot.y.label = fraction ? "share of the copy ceiling" : "achieved bandwidth (TB/s)";
  plot.y.tick_suffix = fraction ? "%" : "";
  double hi = 0;
  line_series selected{{"#374151", 1.3, 1, "", 0}, {}, "the selected winner at each count"};
  std::vector<line_series> ranges;
  if (p.dispatch) {
    for (const select::range& rg : p.dispatch->ranges) {
      line_series s{{m.color.at(rg.winner), 4, 0.9, "", 4.4},
                    {},
                    "winner " + range_label(rg) + ": " + rg.winner};
      for (long long t : m.tokens) {
        if (t < rg.min_tokens || t > rg.max_tokens) continue;
        const results::record* r = record_at(m, rg.winner, t);
        if (!r || !timed(r)) continue;
        const double v = value(r);
        hi = std::max(hi, v);
        const std::string title = "winner " + range_label(rg) + "\n" + rg.winner +
                                  "\nT=" + std::to_string(t) + ": " +
                                  format_sig(r->achieved_tb_s, 3) + " TB/s" +
                                  (fraction ? " = " + fmt_pct(r->fraction_of_ceiling) : "");
        selected.points.push_back({double(t), v, ""});
        s.points.push_back({double(t), v, title});
      }
      ranges.push_back(std::move(s));
    }
  }
  line_series ref{{k_reference_color, 2, 1, "6 3", 2.4}, {}, "reference: " + m.reference};
  if (!m.reference.empty()) {
    for (const results::record* r : m.variants.at(m.reference)) {
      if (!timed(r)) continue;
      hi = std::max(hi, value(r));
      ref.points.push_back({double(r->tokens), value(r),
                            "reference\n" + r->variant + "\nT=" + std::to_string(r->tokens) + ": " +
                                format_sig(r->achieved_tb_s, 3) + " TB/s" +
                                (fraction ? " = " + fmt_pct(r->fraction_of_ceiling) : "")});
    }
  }
  linear_axis_from_zero(hi, fraction ? 10 : 0.1, plot.y);
  plot.plot_height_px = 260;
  if (!ref.points.empty()) plot.series.push_back(ref);
  plot.series.push_back(selected);
  for (line_series& s : ranges) plot.series.push_back(std::move(s));
  plot.legend.push_back({{"#374151", 4, 1, "", 3.4},
                         "selected winner",
                         "in the colour of its range, as in the plot above"});
  if (!ref.points.empty()) plot.legend.push_back({ref.style, "reference", m.reference});
  return render_line_plot(plot);
}

std::string dispatch_table(const panel& p, const panel_model& m) {
  html_table t(
      {{"#", true, "range number"},
       {"tokens", true, "the measured token counts the range covers"},
       {"counts", false, "the measured counts in the range"},
       {"winner", false, "the selected variant"},
       {"runner-up", false, "the fastest other qualified variant"},
       {"margin", true,
        "runner-up / winner - 1, median over the range; negative: a faster "
        "challenger stayed inside the tie band"},
       {"kept", false, "the incumbent kept its place on the tie band"},
       {"winner µs", true, "the winner's median at the range's first and last count"},
       {"vs reference", true, "reference median / winner median (geometric mean over the range)"}});
  for (std::size_t i = 0; i < p.dispatch->ranges.size(); ++i) {
    const select::range& r = p.dispatch->ranges[i];
    std::string counts;
    for (long long tk : m.tokens) {
      if (tk >= r.min_tokens && tk <= r.max_tokens)
        counts += (counts.empty() ? "" : ", ") + std::to_string(tk);
    }
    const results::record* first = record_at(m, r.winner, r.min_tokens);
    const results::record* last = record_at(m, r.winner, r.max_tokens);
    std::string us = first && timed(first) ? fmt_us(first->stats->median) : "–";
    if (r.max_tokens != r.min_tokens)
      us += " – " + (last && timed(last) ? fmt_us(last->stats->median) : "–");
    const double speedup = speedup_over_reference(m, r);
    html_cell swatch{"<span class=\"sw\" style=\"background:" + m.color.at(r.winner) +
                         "\"></span>" + std::to_string(i + 1),
                     double(i + 1), true};
    t.add_row({swatch,
               number_cell(double(r.min_tokens),
                           r.min_tokens == r.max_tokens
                               ? std::to_string(r.min_tokens)
                               : std::to_string(r.min_tokens) + "–" + std::to_string(r.max_tokens)),
               text_cell(counts),
               variant_cell(r.winner, r.winner == m.reference ? "reference" : ""),
               !r.runner_up ? text_cell("–") : variant_cell(*r.runner_up),
               number_cell(r.margin, fmt_pct(r.margin)), text_cell(r.incumbent_kept ? "yes" : "no"),
               number_cell(first && timed(first) ? first->stats->median : 0, us),
               speedup > 0 ? number_cell(speedup, format_sig(speedup, 3) + "×") : text_cell("–")});
  }
  return t.render();
}

std::string records_table(const panel& p, const panel_model& m, std::size_t& shown) {
  std::vector<html_column> columns = {{"T", true, "tokens per call"}, {"variant", false, ""}};
  for (html_column& c : timing_columns(false, "share of the copy ceiling"))
    columns.push_back(std::move(c));
  columns.push_back({"status", false, "the record's status, and its finalist verification"});
  html_table t(std::move(columns));
  std::vector<const results::record*> rows;
  for (const results::record* r :
       p.records) {  // never-measured unlaunchable ones: unlaunchable_table
    if (r->status != results::status::dropped && (timed(r) || !unlaunchable(r))) rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const results::record* a, const results::record* b) {
                     if (a->tokens != b->tokens) return a->tokens < b->tokens;
                     const double x = timed(a) ? a->stats->median : 1e300,
                                  y = timed(b) ? b->stats->median : 1e300;
                     return x < y;
                   });
  for (const results::record* r : rows) {
    std::string badge;
    const auto w = m.range_at.find(r->tokens);
    if (w != m.range_at.end() && p.dispatch->ranges[w->second].winner == r->variant)
      badge = "winner";
    if (r->variant == m.reference) badge += badge.empty() ? "reference" : " · reference";
    std::string status = results::to_text(r->status);
    if (r->verified) {
      status += r->verified->status == results::status::ok
                    ? std::string(", verified")
                    : ", verification " + std::string(results::to_text(r->verified->status));
    }
    if (!r->reason.empty() && r->status != results::status::ok) status += ": " + r->reason;
    std::vector<html_cell> cells = {number_cell(double(r->tokens), std::to_string(r->tokens)),
                                    variant_cell(r->variant, badge)};
    for (html_cell& c : timing_cells(*r, false)) cells.push_back(std::move(c));
    cells.push_back(text_cell(status));
    t.add_row(std::move(cells), badge.rfind("winner", 0) == 0      ? "win"
                                : unlaunchable(r)                  ? "skip"
                                : r->status != results::status::ok ? "bad"
                                                                   : "");
  }
  shown = t.rows();
  return t.render();
}

/// The variants the GPU could not launch, one row each: the counts where, and the reason at the
/// first of them; "" when there are none.
std::string unlaunchable_table(const panel& p, std::size_t& variants) {
  std::map<std::string, std::vector<const results::record*>> by_variant;
  for (const results::record* r : p.records) {
    if (unlaunchable(r)) by_variant[r->variant].push_back(r);
  }
  variants = by_variant.size();
  if (by_variant.empty()) return {};
  html_table t({{"variant", false, ""},
                {"T", true, "the token counts where it could not be launched"},
                {"reason", false, "the limit it exceeds, at the first of those counts"}});
  for (auto& [id, recs] : by_variant) {
    std::stable_sort(
        recs.begin(), recs.end(),
        [](const results::record* a, const results::record* b) { return a->tokens < b->tokens; });
    std::string counts;
    for (const results::record* r : recs)
      counts += (counts.empty() ? "" : ", ") + std::to_string(r->tokens);
    t.add_row({variant_cell(id), number_cell(double(recs.front()->tokens), counts),
               text_cell(recs.front()->reason)},
              "skip");
  }
  return t.render();
}

std::string anchor_of(const panel& p, std::size_t i) {
  std::string a = "p" + std::to_string(i + 1) + "-";
  for (char c : p.family + "-" + p.mode) a += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return a;
}

/// Panel p's row of the summary table (its anchor links to its section).
void add_summary_row(const panel& p, const panel_model& m, const std::string& anchor,
                     html_table& summary) {
  std::size_t finals = 0, failed = 0;
  std::set<std::string> unlaunchable_variants;
  for (const results::record* r : p.records) {
    const bool measured = r->status != results::status::dropped && (timed(r) || !unlaunchable(r));
    finals += measured;
    failed += measured && r->status != results::status::ok &&
              r->status != results::status::unverified && !unlaunchable(r);
    if (unlaunchable(r)) unlaunchable_variants.insert(r->variant);
  }
  double best = 0, worst = 0;
  std::set<std::string> winners;
  if (p.dispatch) {
    for (const select::range& r : p.dispatch->ranges) {
      winners.insert(r.winner);
      const double s = speedup_over_reference(m, r);
      if (s <= 0) continue;
      best = std::max(best, s);
      worst = worst == 0 ? s : std::min(worst, s);
    }
  }
  summary.add_row(
      {html_cell{"<a href=\"#" + anchor + "\">" + html_escape(p.family) + "</a>", 0, false},
       text_cell(p.mode), text_cell(families::shape_text(p.shape)),
       number_cell(double(m.tokens.size()), m.tokens.empty()
                                                ? "0"
                                                : std::to_string(m.tokens.size()) + " (" +
                                                      std::to_string(m.tokens.front()) + "–" +
                                                      std::to_string(m.tokens.back()) + ")"),
       number_cell(double(m.variants.size()), std::to_string(m.variants.size())),
       number_cell(double(finals), std::to_string(finals)),
       number_cell(double(failed), std::to_string(failed)),
       number_cell(double(unlaunchable_variants.size()),
                   std::to_string(unlaunchable_variants.size())),
       number_cell(p.dispatch ? double(p.dispatch->ranges.size()) : 0,
                   p.dispatch ? std::to_string(p.dispatch->ranges.size()) : "–"),
       number_cell(double(winners.size()), std::to_string(winners.size())),
       best > 0 ? number_cell(best, format_sig(worst, 3) + "× – " + format_sig(best, 3) + "×")
                : text_cell("–")});
}

/// Panel p's section: its plots (when anything was timed), its dispatch ranges, its records.
page_section panel_section(const panel& p, const panel_model& m, const std::string& anchor,
                           int& plots) {
  page_section s{anchor, panel_title(p), ""};
  s.html += "<h2>" + html_escape(panel_title(p)) + "</h2>\n";
  const bool any_timed = std::any_of(p.records.begin(), p.records.end(),
                                     [](const results::record* r) { return timed(r); });
  if (!any_timed || m.tokens.empty()) {
    s.html += "<p class=\"note\">Nothing was timed for this " +
              std::string(p.records.empty() ? "entry" : "family and mode") + " (" +
              std::to_string(p.records.size()) + " records).</p>\n";
  } else {
    s.html += "<div class=\"fig\">" + time_plot(p, m) + "</div>\n";
    s.html += "<div class=\"fig\">" + bandwidth_plot(p, m) + "</div>\n";
    plots += 2;
  }
  if (p.dispatch) {
    s.html += "<h3>Dispatch ranges</h3>\n" + dispatch_table(p, m);
  }
  std::size_t shown = 0, skipped = 0;
  const std::string records = records_table(p, m, shown);
  const std::string skipped_table = unlaunchable_table(p, skipped);
  s.html += "<details><summary>Final-round records (" + std::to_string(shown) + " of " +
            std::to_string(p.records.size()) + "; the others were screened out" +
            (skipped ? " or could not be launched" : "") + ")</summary>\n" + records +
            "</details>\n";
  if (skipped) {
    s.html += "<details><summary>Unlaunchable on this GPU (" + std::to_string(skipped) +
              (skipped == 1 ? " variant" : " variants") +
              ": never measured where they could not be launched)</summary>\n" + skipped_table +
              "</details>\n";
  }
  return s;
}

}  // namespace

page_body sweep_body(const results::result_set& doc) {
  page_body body;
  const std::vector<panel> panels = make_panels(doc);
  html_table summary(
      {{"family", false, ""},
       {"mode", false, ""},
       {"shape", false, "the model shape"},
       {"token counts", true, "measured token counts"},
       {"variants", true, "distinct variants measured"},
       {"final", true, "records that reached a final round (status not dropped)"},
       {"failed", true, "records with a failure status"},
       {"unlaunchable", true, "variants the GPU could not launch at some count (not a failure)"},
       {"ranges", true, "dispatch ranges"},
       {"winners", true, "distinct winners"},
       {"vs reference", true, "reference / winner over the ranges: lowest – highest"}});
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const panel& p = panels[i];
    const panel_model m = make_model(p);
    const std::string anchor = anchor_of(p, i);
    add_summary_row(p, m, anchor, summary);
    page_section s = panel_section(p, m, anchor, body.plots);
    body.sections.push_back(std::move(s));
  }
  body.summary_html = "<h2>Summary</h2>\n";
  if (!doc.timed()) {
    body.summary_html +=
        "<p class=\"note\">This sweep ran without a GPU: every variant was compiled and "
        "checked, nothing was timed.</p>\n";
  }
  body.summary_html += summary.render();
  return body;
}

}  // namespace kk3::report::html
