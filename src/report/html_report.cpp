#include "report/html_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/text.hpp"
#include "device/device_info.hpp"
#include "report/html_sections.hpp"
#include "report/svg_plot.hpp"
#include "results/objective.hpp"
#include "results/sweep_file.hpp"

namespace kk3::report {
namespace html {

std::string fmt_us(double us) {
  return format_sig(us, 4);
}

std::string fmt_pct(double fraction) {
  return format_sig(fraction * 100, 3) + "%";
}

std::vector<html_column> timing_columns(bool with_min, const std::string& ceiling_note) {
  std::vector<html_column> c = {
      {"median µs", true, "median time per call"}, {"p10 µs", true, ""}, {"p90 µs", true, ""}};
  if (with_min) c.push_back({"min µs", true, ""});
  c.insert(c.end(), {{"noise", true, "relative standard error of the median"},
                     {"samples", true, ""},
                     {"TB/s", true, "achieved bandwidth: bytes moved / median"},
                     {"% ceiling", true, ceiling_note}});
  return c;
}

bool timed(const results::record* r) {
  return r->stats && r->stats->median > 0;
}

std::vector<html_cell> timing_cells(const results::record& r, bool with_min) {
  const bool s = timed(&r);
  const results::sample_stats st = s ? *r.stats : results::sample_stats{};
  auto us = [&](double v) { return number_cell(v, s ? fmt_us(v) : "–"); };
  std::vector<html_cell> c = {us(st.median), us(st.p10), us(st.p90)};
  if (with_min) c.push_back(us(st.min));
  c.insert(c.end(),
           {number_cell(st.rel_stderr_median, s ? fmt_pct(st.rel_stderr_median) : "–"),
            number_cell(st.samples, s ? format_sig(st.samples, 6) : "–"),
            number_cell(r.achieved_tb_s, format_sig(r.achieved_tb_s, 3)),
            number_cell(r.fraction_of_ceiling,
                        r.fraction_of_ceiling > 0 ? fmt_pct(r.fraction_of_ceiling) : "–")});
  return c;
}

std::string record_title(const results::record& r) {
  std::string t = r.variant + "\nT=" + std::to_string(r.tokens);
  const std::string shape = families::shape_text(r.shape);
  if (!shape.empty()) t += " " + shape;
  if (r.stats) {
    const results::sample_stats& s = *r.stats;
    t += ": median " + fmt_us(s.median) + " µs (p10 " + fmt_us(s.p10) + ", p90 " + fmt_us(s.p90) +
         ")\n" + format_sig(s.samples, 6) + " samples, noise " + fmt_pct(s.rel_stderr_median);
  }
  if (r.achieved_tb_s > 0) t += ", " + format_sig(r.achieved_tb_s, 3) + " TB/s";
  t += "\nstatus " + std::string(results::to_text(r.status));
  if (!r.reason.empty()) t += ": " + r.reason;
  return t;
}

const char* palette_color(std::size_t i) {
  static const char* const k_palette[] = {"#e4572e", "#2e86ab", "#3bb273", "#f0a202",
                                          "#7768ae", "#d1495b", "#00a6a6", "#8f5d3c",
                                          "#b8a000", "#4361ee", "#b5179e", "#6a994e"};
  return k_palette[i % (sizeof k_palette / sizeof k_palette[0])];
}

}  // namespace html

namespace {

using ordered_json = nlohmann::ordered_json;

std::string value_text(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return format_sig(v.get<double>(), 6);
  if (v.is_null()) return "–";
  if (v.is_array()) {
    std::string out;
    for (const ordered_json& x : v) out += (out.empty() ? "" : ", ") + value_text(x);
    return out;
  }
  return v.dump();
}

/// A plan entry as a label and a value with its unit ("copy_ceiling_tb_s" -> "copy ceiling",
/// "4.192 TB/s").
std::pair<std::string, std::string> plan_entry(std::string key, const ordered_json& v) {
  if (key == "min_gain" && v.is_number())
    return {"minimum gain", format_sig(v.get<double>() * 100, 4) + "%"};
  if (key == "noise_sigmas" && v.is_number()) {
    return {"tie band", format_sig(v.get<double>(), 4) + " combined standard errors"};
  }
  if (key == "tokens") return {"token counts", value_text(v)};
  std::string unit;
  for (const auto& [suffix, u] :
       {std::pair<std::string, std::string>{"_tb_s", " TB/s"}, {"_us", " µs"}, {"_s", " s"}}) {
    if (v.is_number() && key.size() > suffix.size() &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      key.resize(key.size() - suffix.size());
      unit = u;
      break;
    }
  }
  std::replace(key.begin(), key.end(), '_', ' ');
  return {key, v.is_number() ? format_sig(v.get<double>(), 4) + unit : value_text(v)};
}

/// A sweep's plan block as labelled values, in the file's order: the model's plan as the sweep
/// file's writer holds it (results/sweep_file.hpp), so the page shows what the file says; each
/// family's objective in words.
std::vector<std::pair<std::string, std::string>> plan_facts(const results::result_set& doc) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!doc.plan) return out;
  const ordered_json plan = results::plan_json(*doc.plan, doc.families);
  for (const auto& [k, v] : plan.items()) {
    if (k == "objective") {
      for (const results::family_summary& f : doc.families)
        out.emplace_back("objective (" + f.family + ")", results::describe(f.objective));
      continue;
    }
    if (k == "copy_ceiling_tb_s" && !doc.timed()) continue;  // no GPU: nothing was measured
    if (k == "shipped") continue;  // an untimed sweep's: its resource summary says it in words
    out.push_back(plan_entry(k, v));
  }
  return out;
}

std::string range_text(double lo, double hi) {
  return lo == hi ? format_sig(lo, 6) : format_sig(lo, 6) + "–" + format_sig(hi, 6);
}

/// A time file's subject seed and its entries' timing settings (each distinct value once), as
/// labelled values.
std::vector<std::pair<std::string, std::string>> subject_facts(const results::result_set& doc) {
  std::vector<std::pair<std::string, std::string>> out;
  if (doc.kind != "time") return out;
  if (doc.seed) out.emplace_back("seed", std::to_string(*doc.seed));
  std::set<std::string> modes, pdl, objectives;
  std::map<std::string, int> stopped;
  double lo = 1e300, hi = 0;
  for (const results::record& r : doc.records) {
    if (!r.timing_mode.empty()) modes.insert(r.timing_mode);
    if (r.pdl) pdl.insert(*r.pdl ? "on" : "off");
    if (!r.stopped.empty()) ++stopped[r.stopped];
    objectives.insert(results::describe(r.objective));
    if (r.launches_per_sample > 0) {
      lo = std::min(lo, r.launches_per_sample);
      hi = std::max(hi, r.launches_per_sample);
    }
  }
  auto listed = [](const std::set<std::string>& set) {
    return join(std::vector<std::string>(set.begin(), set.end()), ", ");
  };
  if (!objectives.empty()) out.emplace_back("objective", listed(objectives));
  if (!modes.empty()) out.emplace_back("timing mode", listed(modes));
  if (!pdl.empty()) out.emplace_back("PDL", listed(pdl));
  if (hi > 0) out.emplace_back("launches per sample", range_text(lo, hi));
  std::vector<std::string> st;
  for (const auto& [k, n] : stopped) st.push_back(k + " " + std::to_string(n));
  if (!st.empty()) out.emplace_back("stopped", join(st, ", "));
  return out;
}

constexpr const char* k_style = R"CSS(
:root{--fg:#111827;--muted:#4b5563;--line:#d6dae1;--head:#f3f4f6;--accent:#1f5fa8}
*{box-sizing:border-box}
body{margin:0;background:#eef0f3;color:var(--fg);font:14px/1.45 "DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif}
main{max-width:1360px;margin:0 auto;padding:18px 24px 40px}
header.top{background:#1f2937;color:#f9fafb;padding:16px 24px}
header.top h1{margin:0 auto;max-width:1312px;font-size:21px;font-weight:600}
header.top p{margin:4px auto 0;max-width:1312px;color:#cbd5e1;font-size:13px}
section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:14px 18px;margin:16px 0}
h2{font-size:17px;margin:2px 0 10px}
h3{font-size:14px;margin:16px 0 6px;color:var(--muted)}
dl.ctx{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:6px 18px;margin:0}
dl.ctx div{min-width:0}
dl.ctx dt{font-size:11.5px;color:var(--muted)}
dl.ctx dd{margin:0;overflow-wrap:anywhere}
dl.ctx div.wide{grid-column:1/-1}
code,.mono{font-family:"DejaVu Sans Mono","Liberation Mono",Menlo,Consolas,monospace;font-size:12px}
nav.toc{columns:3;font-size:13px}
nav.toc a{display:block;color:var(--accent);text-decoration:none}
.fig{overflow-x:auto;margin:6px 0 10px}
svg.plot{display:block;max-width:100%;height:auto;border:1px solid #e5e7eb}
table.sortable{border-collapse:collapse;width:100%;font-size:12.5px;margin:4px 0 8px}
table.sortable th,table.sortable td{border-bottom:1px solid #e5e7eb;padding:3px 8px;text-align:left;vertical-align:top}
table.sortable th{background:var(--head);position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
table.sortable th.num,table.sortable td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.sortable th[aria-sort=ascending]::after{content:" \25B2";font-size:10px}
table.sortable th[aria-sort=descending]::after{content:" \25BC";font-size:10px}
table.sortable tbody tr:nth-child(even){background:#fafbfc}
table.sortable tr.win td{background:#ecfdf3}
table.sortable tr.bad td{background:#fef2f2}
table.sortable tr.skip td{background:#f3f4f6;color:#6b7280}
.badge{display:inline-block;font-size:10.5px;padding:0 5px;border-radius:8px;background:#e0e7ff;color:#3730a3}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:-1px}
details summary{cursor:pointer;color:var(--accent);margin:8px 0 4px}
p.note{color:var(--muted)}
)CSS";

// Sorts a table by a header click; numbers by data-v, text otherwise; a second click reverses.
constexpr const char* k_script = R"JS(
(function(){
  function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent.trim():parseFloat(v);}
  var tables=document.querySelectorAll('table.sortable');
  for(var i=0;i<tables.length;i++)(function(t){
    var ths=t.tHead.rows[0].cells;
    for(var c=0;c<ths.length;c++)(function(th,c){
      th.addEventListener('click',function(){
        var asc=th.getAttribute('aria-sort')!=='ascending';
        for(var k=0;k<ths.length;k++)ths[k].removeAttribute('aria-sort');
        th.setAttribute('aria-sort',asc?'ascending':'descending');
        var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){var x=key(a.cells[c]),y=key(b.cells[c]);
          var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y),undefined,{numeric:true});
          return asc?r:-r;});
        for(var r=0;r<rows.length;r++)body.appendChild(rows[r]);
      });
    })(ths[c],c);
  })(tables[i]);
})();
)JS";

void add_fact(std::string& out, const std::string& name, const std::string& value,
              bool wide = false, bool mono = false) {
  if (value.empty()) return;
  out += wide ? "<div class=\"wide\">" : "<div>";
  out += "<dt>" + html_escape(name) + "</dt><dd" + std::string(mono ? " class=\"mono\"" : "") +
         ">" + html_escape(value) + "</dd></div>\n";
}

std::string context_html(const results::result_set& doc) {
  const results::run_context& c = doc.context;
  const device::device_info& gpu = c.gpu;
  std::string out = "<section id=\"context\">\n<h2>Run context</h2>\n<dl class=\"ctx\">\n";
  add_fact(out, "GPU", gpu.name);
  std::string arch =
      gpu.cc_major > 0 || gpu.cc_minor > 0 ? device::compute_capability_text(gpu) : "";
  if (!gpu.arch.empty()) arch += (arch.empty() ? "" : " · ") + gpu.arch;
  add_fact(out, "compute capability · arch", arch);
  add_fact(out, "SMs", gpu.sm_count > 0 ? std::to_string(gpu.sm_count) : "");
  add_fact(
      out, "L2",
      gpu.l2_bytes > 0 ? format_sig(double(gpu.l2_bytes) / (1024.0 * 1024.0), 4) + " MiB" : "");
  std::string clocks;
  const int sm_mhz = gpu.clocks ? gpu.clocks->sm_mhz : 0;
  const int memory_mhz = gpu.clocks ? gpu.clocks->memory_mhz : 0;
  if (sm_mhz > 0) clocks = "SM " + format_sig(sm_mhz, 5) + " MHz";
  if (memory_mhz > 0) {
    clocks += (clocks.empty() ? "" : " · ") + ("memory " + format_sig(memory_mhz, 5) + " MHz");
  }
  add_fact(out, "clocks", clocks);
  add_fact(out, "driver", gpu.driver_version > 0 ? device::version_string(gpu.driver_version) : "");
  add_fact(out, "NVRTC", c.nvrtc_version);
  add_fact(out, "kk3tune version", c.tool_version);
  add_fact(out, "git revision", c.git_revision, false, true);
  add_fact(out, "time (UTC)", c.utc_time);
  add_fact(out, "file",
           doc.file.filename().string() + " · kind " + doc.kind + " · schema " +
               std::to_string(doc.schema_version));
  for (const auto& [k, v] : subject_facts(doc)) add_fact(out, k, v);
  std::string argv;
  // As typed: a file from before workers recorded their supervisor's command shows theirs.
  for (const std::string& a : results::typed_command(c.argv)) argv += (argv.empty() ? "" : " ") + a;
  add_fact(out, "command", argv, true, true);
  if (const auto plan = plan_facts(doc); !plan.empty()) {
    out += "</dl>\n<h3>Plan</h3>\n<dl class=\"ctx\">\n";
    for (const auto& [k, v] : plan)
      add_fact(out, k, v, k == "token counts" || k == "config", k == "config");
  }
  return out + "</dl>\n</section>\n";
}

}  // namespace

html_report render_html_report(const results::result_set& doc) {
  const bool sweep = doc.kind == "sweep";
  const bool untimed = sweep && !doc.timed();  // compiled only: a resource report, no plots
  const html::page_body body = untimed ? html::resources_body(doc)
                               : sweep ? html::sweep_body(doc)
                                       : html::time_body(doc);
  const std::string name = doc.file.filename().string();
  html_report r;
  r.plots = body.plots;
  std::string& out = r.html;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>kk3tune report — " + html_escape(name) + "</title>\n<style>" + k_style +
         "</style>\n</head>\n<body>\n";
  out += "<header class=\"top\"><h1>kk3tune " +
         std::string(untimed ? "untimed sweep"
                     : sweep ? "sweep"
                             : "time") +
         " report — " + html_escape(name) + "</h1>\n<p>" +
         html_escape(untimed ? "compiled only, no GPU: nothing was timed" : doc.context.gpu.name) +
         (doc.context.utc_time.empty()
              ? ""
              : (untimed ? " · compiled " : " · measured ") + html_escape(doc.context.utc_time)) +
         " · " + std::to_string(doc.records.size()) + " records" +
         (sweep ? " · " + std::to_string(doc.dispatch.size()) + " dispatch tables" : "") +
         "</p></header>\n";
  // An untimed sweep's resources come first: its plan (every item listed) says little.
  out += "<main>\n" + (untimed ? "" : context_html(doc));
  out += "<section id=\"summary\">\n" + body.summary_html;
  if (body.sections.size() > 1) {
    out += "<nav class=\"toc\">\n";
    for (const html::page_section& s : body.sections) {
      out += "<a href=\"#" + html_escape(s.anchor) + "\">" + html_escape(s.title) + "</a>\n";
    }
    out += "</nav>\n";
  }
  out += "</section>\n";
  if (untimed) out += context_html(doc);
  for (const html::page_section& s : body.sections) {
    out += "<section id=\"" + html_escape(s.anchor) + "\">\n" + s.html + "</section>\n";
  }
  out += "</main>\n<script>" + std::string(k_script) + "</script>\n</body>\n</html>\n";
  return r;
}

}  // namespace kk3::report
