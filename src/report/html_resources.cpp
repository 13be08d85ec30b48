// The page of an untimed sweep (compiled only, no GPU): nothing was timed, so instead of plots a
// resource report. A summary per family, mode and arch (compiles, variants at the register
// limit, spilling, occupancy range on the named GPU), then per family x mode a table of every
// variant x arch: registers, spills, shared memory, stack, the launch, and the theoretical
// occupancy on the arch's named GPU with its limiter.
#include <algorithm>
#include <map>

#include "report/html_sections.hpp"
#include "report/svg_plot.hpp"

namespace kk3::report::html {
namespace {

constexpr int k_register_limit = 255;

html_cell count_cell(long long v) {
  return v < 0 ? text_cell("?") : number_cell(double(v), std::to_string(v));
}

bool spills(const results::arch_resources& a) {
  return a.spill_store_bytes > 0 || a.spill_load_bytes > 0;
}

/// One family x mode and arch: what the summary row counts.
struct arch_tally {
  std::size_t variants = 0, failed = 0, at_limit = 0, spilling = 0;
  double lowest = 2, highest = -1;  // occupancy
  std::string target;
};

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

/// The table of every variant's resources per arch, without rows.
html_table variant_resources_table() {
  return html_table({{"variant", false, ""},
                     {"arch", false, ""},
                     {"regs", true, "registers per thread"},
                     {"spill st", true, "bytes of spill stores"},
                     {"spill ld", true, "bytes of spill loads"},
                     {"smem", true, "static shared memory per CTA, bytes"},
                     {"stack", true, "stack frame per thread, bytes"},
                     {"threads", true, "threads per CTA of the launch at this shape"},
                     {"dyn smem", true, "dynamic shared memory per CTA of the launch, bytes"},
                     {"cluster", true, "CTAs per thread-block cluster"},
                     {"target", false, "the named GPU of the arch"},
                     {"CTAs/SM", true, "resident CTAs per SM (theoretical)"},
                     {"warps/SM", true, "resident warps per SM (theoretical)"},
                     {"occupancy", true, "resident warps over the SM's 64"},
                     {"limiter", false, "what bounds the CTAs per SM"}});
}

/// Record r's rows (one per arch it compiled for) and its part of each arch's tally.
void add_resource_rows(const results::record& r, html_table& table,
                       std::map<std::string, arch_tally>& tally, std::size_t& with_resources) {
  std::vector<std::string> compiled;
  for (const results::arch_resources& a : r.resources) {
    ++with_resources;
    compiled.push_back(a.arch);
    arch_tally& t = tally[a.arch];
    ++t.variants;
    t.target = a.target;
    t.at_limit += a.registers >= k_register_limit;
    t.spilling += spills(a);
    if (!a.target.empty()) {
      t.lowest = std::min(t.lowest, a.occupancy);
      t.highest = std::max(t.highest, a.occupancy);
    }
    const std::string row_class = a.registers >= k_register_limit || spills(a) ? "bad" : "";
    table.add_row(
        {variant_cell(r.variant, r.reference ? "reference" : ""), text_cell(a.arch),
         count_cell(a.registers), count_cell(a.spill_store_bytes), count_cell(a.spill_load_bytes),
         count_cell(a.shared_bytes), count_cell(a.stack_bytes), count_cell(a.threads_per_cta),
         count_cell(a.dynamic_shared_bytes), count_cell(a.cluster_ctas),
         text_cell(a.target.empty() ? "–" : a.target),
         a.target.empty() ? text_cell("–") : count_cell(a.ctas_per_sm),
         a.target.empty() ? text_cell("–") : count_cell(a.warps_per_sm),
         a.target.empty() ? text_cell("–") : number_cell(a.occupancy, fmt_pct(a.occupancy)),
         text_cell(a.limiter)},
        row_class);
  }
  if (r.status == results::status::compile_failed) {
    for (auto& [arch, t] : tally) {
      if (std::find(compiled.begin(), compiled.end(), arch) == compiled.end()) ++t.failed;
    }
  }
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
      "shape shown. A sweep on a GPU times the variants (the committed H200 results under "
      "results/h200/).</p>\n";
  if (with_resources == 0) {
    html +=
        "<p class=\"note\">This file's records carry no resources (written by a kk3tune from "
        "before they were recorded): sweep again to see them.</p>\n";
  }
  return html;
}

}  // namespace

page_body resources_body(const results::result_set& doc) {
  page_body body;
  const std::vector<record_group> groups = group_by_mode(doc);
  html_table summary({{"family", false, ""},
                      {"mode", false, ""},
                      {"arch", false, "the arch compiled for"},
                      {"target", false, "the GPU whose SMs the occupancy is computed for"},
                      {"variants", true, "variants compiled for this arch"},
                      {"failed", true, "variants that did not compile for this arch"},
                      {"at 255 regs", true, "variants at the register limit (255 per thread)"},
                      {"spilling", true, "variants with spill stores or loads"},
                      {"occupancy", true, "theoretical occupancy: lowest – highest"}});
  std::size_t with_resources = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& [title, records] = groups[g];
    const std::string family = records.front()->family, mode = records.front()->mode;
    std::map<std::string, arch_tally> tally;
    for (const std::string& arch : doc.plan ? doc.plan->archs : std::vector<std::string>{})
      tally[arch];
    html_table table = variant_resources_table();
    for (const results::record* r : records) add_resource_rows(*r, table, tally, with_resources);
    const std::string anchor = anchor_of(family, mode);
    for (const auto& [arch, t] : tally) {
      summary.add_row(
          {html_cell{"<a href=\"#" + anchor + "\">" + html_escape(family) + "</a>", 0, false},
           text_cell(mode), text_cell(arch), text_cell(t.target.empty() ? "–" : t.target),
           count_cell(static_cast<long long>(t.variants)),
           count_cell(static_cast<long long>(t.failed)),
           count_cell(static_cast<long long>(t.at_limit)),
           count_cell(static_cast<long long>(t.spilling)),
           t.highest < 0 ? text_cell("–")
                         : number_cell(t.lowest, fmt_pct(t.lowest) + " – " + fmt_pct(t.highest))});
    }
    page_section s{anchor, title, ""};
    s.html += "<h2>" + html_escape(title) + "</h2>\n";
    s.html += "<p class=\"note\">" + std::to_string(records.size()) + " variants, compiled at " +
              html_escape(families::shape_text(records.front()->shape)) +
              "; rows at 255 registers or spilling are marked.</p>\n";
    s.html += "<details><summary>Resources of every variant and arch (" +
              std::to_string(table.rows()) + " rows)</summary>\n" + table.render() + "</details>\n";
    body.sections.push_back(std::move(s));
  }
  body.summary_html = untimed_note(with_resources);
  body.summary_html += summary.render();
  return body;
}

}  // namespace kk3::report::html
