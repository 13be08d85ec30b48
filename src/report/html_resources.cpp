// The page of an untimed sweep (compiled only, no GPU): nothing was timed, so instead of plots a
// resource report. A summary per family, mode and arch (compiles, variants at the register
// limit, spilling, occupancy and waves per SM on the named GPU, what the committed dispatch
// tables ship), with the archs the committed tables do not cover and every shipped variant that
// spills said plainly; then per family x mode what its committed table ships and with what
// resources, a table of every variant x arch (registers, spills, shared memory, stack, the launch,
// the theoretical occupancy with its limiter, the ranges where it ships), and each variant's grid
// and waves per SM at the plan's token counts. The facts are results/untimed_facts.hpp's, the
// text summary's too.
#include <algorithm>
#include <map>
#include <tuple>

#include "report/html_sections.hpp"
#include "report/svg_plot.hpp"
#include "results/untimed_facts.hpp"

namespace kk3::report::html {
namespace {

/// Columns the resource tables share.
const html_column k_regs{"regs", true, "registers per thread"};
const html_column k_spill_st{"spill st", true, "bytes of spill stores"};
const html_column k_spill_ld{"spill ld", true, "bytes of spill loads"};
const html_column k_ctas_per_sm{"CTAs/SM", true, "resident CTAs per SM (theoretical)"};
const html_column k_occupancy{"occupancy", true, "resident warps over the SM's 64"};

html_cell count_cell(long long v) {
  return v < 0 ? text_cell("?") : number_cell(double(v), std::to_string(v));
}

html_cell span_cell(const results::value_span& s, std::string (*text)(double)) {
  return s.any ? number_cell(s.least, results::span_text(s, text)) : text_cell("–");
}

std::string percent_text(double fraction) {
  return fmt_pct(fraction);
}

std::string anchor_of(const std::string& family, const std::string& mode) {
  std::string a = "r-";
  for (char c : family + "-" + mode) a += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return a;
}

using record_group = std::pair<std::string, std::vector<const results::record*>>;

/// Family x mode in file order, each with its records.
std::vector<record_group> group_by_mode(const results::result_set& doc) {
  std::vector<record_group> groups;
  std::map<std::string, std::size_t> index;
  for (const results::record& r : doc.records) {
    const std::string key = r.family + " · " + r.mode;
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].second.push_back(&r);
  }
  return groups;
}

/// Whether the committed tables cover `arch` (a timed sweep of it ships).
bool timed_arch(const results::result_set& doc, const std::string& arch) {
  if (!doc.plan || !doc.plan->shipped) return false;
  const std::vector<std::string>& a = doc.plan->shipped->timed_archs;
  return std::find(a.begin(), a.end(), arch) != a.end();
}

/// The table of every variant's resources per arch, without rows.
html_table variant_resources_table() {
  return html_table({{"variant", false, ""},
                     {"arch", false, ""},
                     k_regs,
                     k_spill_st,
                     k_spill_ld,
                     {"smem", true, "static shared memory per CTA, bytes"},
                     {"stack", true, "stack frame per thread, bytes"},
                     {"threads", true, "threads per CTA of the launch at this shape"},
                     {"dyn smem", true, "dynamic shared memory per CTA of the launch, bytes"},
                     {"cluster", true, "CTAs per thread-block cluster"},
                     {"target", false, "the named GPU of the arch"},
                     k_ctas_per_sm,
                     {"warps/SM", true, "resident warps per SM (theoretical)"},
                     k_occupancy,
                     {"limiter", false, "what bounds the CTAs per SM"},
                     {"ships at", false, "the token counts where the committed tables choose it"}});
}

/// Record r's rows (one per arch it compiled for): spilling or at the limit marked bad, shipped
/// marked as a winner.
void add_resource_rows(const results::record& r, html_table& table) {
  for (const results::arch_resources& a : r.resources) {
    const bool bad = a.registers >= results::k_register_limit || a.spills();
    table.add_row(
        {variant_cell(r.variant, r.reference ? "reference" : ""), text_cell(a.arch),
         count_cell(a.registers), count_cell(a.spill_store_bytes), count_cell(a.spill_load_bytes),
         count_cell(a.shared_bytes), count_cell(a.stack_bytes), count_cell(a.threads_per_cta),
         count_cell(a.dynamic_shared_bytes), count_cell(a.cluster_ctas),
         text_cell(a.target.empty() ? "–" : a.target),
         a.target.empty() ? text_cell("–") : count_cell(a.ctas_per_sm),
         a.target.empty() ? text_cell("–") : count_cell(a.warps_per_sm),
         a.target.empty() ? text_cell("–") : number_cell(a.occupancy, fmt_pct(a.occupancy)),
         text_cell(a.limiter), text_cell(results::ranges_text(a.ships))},
        bad                ? "bad"
        : !a.ships.empty() ? "win"
                           : "");
  }
}

/// What the committed table of one family x mode ships: a row per arch and range, in token
/// order, with the chosen variant's resources there and its waves per SM at the plan's counts in
/// the range. Empty when nothing of it ships.
std::string shipped_table(const std::vector<const results::record*>& records) {
  struct shipped_range {
    const results::record* r;
    const results::arch_resources* a;
    results::token_range range;
  };
  std::vector<shipped_range> rows;
  for (const results::record* r : records) {
    for (const results::arch_resources& a : r->resources) {
      for (const results::token_range& t : a.ships) rows.push_back({r, &a, t});
    }
  }
  if (rows.empty()) return {};
  std::sort(rows.begin(), rows.end(), [](const shipped_range& x, const shipped_range& y) {
    return std::tie(x.a->arch, x.range.min_tokens) < std::tie(y.a->arch, y.range.min_tokens);
  });
  html_table table(
      {{"arch", false, ""},
       {"tokens", false, "the range of the committed table"},
       {"variant", false, "what the committed table chooses there"},
       k_regs,
       k_spill_st,
       k_spill_ld,
       k_ctas_per_sm,
       k_occupancy,
       {"waves/SM", true, "CTAs / (SMs x CTAs per SM) at the plan's counts in the range"}});
  for (const shipped_range& x : rows) {
    results::value_span waves;
    for (const results::token_grid& g : x.r->grids) {
      if (x.range.contains(g.tokens) && x.a->waves(g.ctas) >= 0) waves.add(x.a->waves(g.ctas));
    }
    table.add_row(
        {text_cell(x.a->arch),
         number_cell(double(x.range.min_tokens), results::range_text(x.range)),
         variant_cell(x.r->variant, x.r->reference ? "reference" : ""), count_cell(x.a->registers),
         count_cell(x.a->spill_store_bytes), count_cell(x.a->spill_load_bytes),
         x.a->target.empty() ? text_cell("–") : count_cell(x.a->ctas_per_sm),
         x.a->target.empty() ? text_cell("–")
                             : number_cell(x.a->occupancy, fmt_pct(x.a->occupancy)),
         span_cell(waves, results::waves_text)},
        x.a->spills() ? "bad" : "");
  }
  return "<h3>What the committed table ships</h3>\n" + table.render();
}

/// Every variant's grid and waves per SM at the plan's token counts: a row per variant, a cell
/// per count with its CTAs and the waves on each arch with a target ("256 · 0.97 · 0.865"), in
/// bold where the committed tables choose it. Empty without grids (a file from before them).
std::string grids_table(const std::vector<const results::record*>& records,
                        const std::vector<std::string>& archs) {
  const std::vector<results::token_grid>* counts = nullptr;
  for (const results::record* r : records) {
    if (!r->grids.empty()) counts = &r->grids;
  }
  if (!counts) return {};
  std::string legend = "CTAs";
  for (const std::string& arch : archs) legend += " · waves on " + arch;
  std::vector<html_column> columns = {{"variant", false, ""}};
  for (const results::token_grid& g : *counts) {
    columns.push_back({"T=" + std::to_string(g.tokens), true,
                       legend + " (waves per SM: CTAs / (SMs x CTAs per SM))"});
  }
  html_table table(std::move(columns));
  for (const results::record* r : records) {
    std::vector<html_cell> cells = {variant_cell(r->variant, r->reference ? "reference" : "")};
    bool ships = false;
    for (const results::token_grid& g : r->grids) {
      std::string text = std::to_string(g.ctas);
      bool here = false;
      for (const std::string& arch : archs) {
        const auto a =
            std::find_if(r->resources.begin(), r->resources.end(),
                         [&](const results::arch_resources& x) { return x.arch == arch; });
        const double w = a == r->resources.end() ? -1 : a->waves(g.ctas);
        text += " · " + (w < 0 ? std::string("–") : results::waves_text(w));
        here = here || (a != r->resources.end() && a->ships_at(g.tokens));
      }
      ships = ships || here;
      // Sorted by its text (the CTAs first): a sort value on every cell would weigh the page.
      cells.push_back(html_cell{here ? "<b>" + text + "</b>" : text, 0, false});
    }
    table.add_row(std::move(cells), ships ? "win" : "");
  }
  return "<details><summary>Grid and waves per SM at each token count (" + legend +
         "; bold where the committed tables choose the variant)</summary>\n" + table.render() +
         "</details>\n";
}

/// The summary's opening: what an untimed sweep is and gives.
std::string untimed_note(std::size_t with_resources) {
  std::string html = "<h2>Resources (untimed sweep)</h2>\n";
  html +=
      "<p class=\"note\">This sweep ran without a GPU: every variant was compiled and the plan "
      "checked; nothing was timed, so there are no times, bandwidths or dispatch tables. What "
      "it gives is each variant's resources per arch, and the theoretical occupancy on the "
      "arch's named GPU (sm_90a: H200, 132 SMs; sm_100a: B200, 148 SMs), computed as the CUDA "
      "occupancy calculator does from the registers, the shared memory and the launch at the "
      "shape shown, with the waves per SM of its grid at each token count (CTAs / (SMs × CTAs "
      "per SM)). A sweep on a GPU times the variants (the committed H200 results under "
      "results/h200/).</p>\n";
  if (with_resources == 0) {
    html +=
        "<p class=\"note\">This file's records carry no resources (written by a kk3tune from "
        "before they were recorded): sweep again to see them.</p>\n";
  }
  return html;
}

/// What ships: the committed tables the sweep marked its variants by, the archs they do not
/// cover, and every shipped variant that spills.
std::string shipped_note(const results::result_set& doc) {
  if (!doc.plan || !doc.plan->shipped) {
    return "<p class=\"note\">What ships is not marked: the sweep found no committed dispatch "
           "tables (or this file is from before it marked them).</p>\n";
  }
  const results::shipped_tables& s = *doc.plan->shipped;
  std::string html = "<p>What ships: the committed dispatch tables, from <code>" +
                     html_escape(s.file) + "</code> (" + html_escape(s.gpu) + ", " +
                     html_escape(s.arch) + ", git <code>" + html_escape(s.git_revision) +
                     "</code>). Each variant's rows say where they choose it (<em>ships at</em>); "
                     "shipped rows are green, spilling ones red.</p>\n";
  for (const std::string& arch : doc.plan->archs) {
    if (timed_arch(doc, arch)) continue;
    html += "<p><b>" + html_escape(arch) +
            ": no timed sweep.</b> The committed headers' select() returns the reference "
            "variant there, so its occupancy and waves are informative only.</p>\n";
  }
  const std::vector<results::shipped_spill> spills = results::shipped_spills(doc.records);
  if (spills.empty()) return html + "<p>No shipped variant spills.</p>\n";
  html += "<p><b>Shipped variants that spill:</b></p>\n<ul>\n";
  for (const results::shipped_spill& x : spills) {
    html += "<li><code>" + html_escape(x.family + " " + x.variant) + "</code> on " +
            html_escape(x.arch) + (x.target.empty() ? "" : " (" + html_escape(x.target) + ")") +
            ": spill stores " + results::span_text(x.store_bytes, results::bytes_text) +
            " bytes, loads " + results::span_text(x.load_bytes, results::bytes_text) +
            " bytes where it ships, at " + std::to_string(x.ranges.size()) +
            " ranges: " + html_escape(join(x.ranges, ", ")) + "</li>\n";
  }
  return html + "</ul>\n";
}

}  // namespace

page_body resources_body(const results::result_set& doc) {
  page_body body;
  const std::vector<record_group> groups = group_by_mode(doc);
  const std::vector<std::string> archs = doc.plan ? doc.plan->archs : std::vector<std::string>{};
  html_table summary(
      {{"family", false, ""},
       {"mode", false, ""},
       {"arch", false, "the arch compiled for"},
       {"target", false, "the GPU whose SMs the occupancy is computed for"},
       {"variants", true, "variants compiled for this arch"},
       {"failed", true, "variants that did not compile for this arch"},
       {"at 255 regs", true, "variants at the register limit (255 per thread)"},
       {"spilling", true, "variants with spill stores or loads"},
       {"occupancy", true, "theoretical occupancy: lowest – highest"},
       {"waves/SM", true, "waves per SM of every variant at the plan's token counts"},
       {"shipped", true, "variants the committed tables choose, and at how many ranges"}});
  std::size_t with_resources = 0;
  for (const auto& [title, records] : groups) {
    const std::string family = records.front()->family, mode = records.front()->mode;
    const std::string anchor = anchor_of(family, mode);
    for (const results::record* r : records) with_resources += r->resources.size();
    for (const auto& [arch, t] : results::tally_by_arch(records, archs)) {
      summary.add_row(
          {html_cell{"<a href=\"#" + anchor + "\">" + html_escape(family) + "</a>", 0, false},
           text_cell(mode), text_cell(arch), text_cell(t.target.empty() ? "–" : t.target),
           count_cell(static_cast<long long>(t.compiled)),
           count_cell(static_cast<long long>(t.failed)),
           count_cell(static_cast<long long>(t.at_limit)),
           count_cell(static_cast<long long>(t.spilling)), span_cell(t.occupancy, percent_text),
           span_cell(t.waves, results::waves_text),
           timed_arch(doc, arch)
               ? number_cell(double(t.shipped), std::to_string(t.shipped) + " at " +
                                                    std::to_string(t.ranges) + " ranges")
               : text_cell(doc.plan && doc.plan->shipped ? "no timed sweep" : "–")});
    }
    html_table table = variant_resources_table();
    for (const results::record* r : records) add_resource_rows(*r, table);
    page_section s{anchor, title, ""};
    s.html += "<h2>" + html_escape(title) + "</h2>\n";
    s.html += "<p class=\"note\">" + std::to_string(records.size()) + " variants, compiled at " +
              html_escape(families::shape_text(records.front()->shape)) +
              "; rows at 255 registers or spilling are marked red, rows the committed tables "
              "ship green.</p>\n";
    s.html += shipped_table(records);
    s.html += "<details><summary>Resources of every variant and arch (" +
              std::to_string(table.rows()) + " rows)</summary>\n" + table.render() + "</details>\n";
    s.html += grids_table(records, archs);
    body.sections.push_back(std::move(s));
  }
  body.summary_html = untimed_note(with_resources) + shipped_note(doc);
  body.summary_html += summary.render();
  return body;
}

}  // namespace kk3::report::html
