// `kk3tune report`: the HTML page of a sweep and of a time file (plots, tables, escaping, no
// network, same bytes twice), the command's exit codes, and the page as headless Chromium draws it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include "core/text.hpp"
#include "report/html_report.hpp"
#include "report/records_csv.hpp"
#include "results/reader.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

using test::run_command;
using test::run_kk3tune;
using test::shell_quote;

const std::string k_fixtures = std::string(KK3_FIXTURE_DIR) + "/report";
const std::string k_sweep = k_fixtures + "/sweep.json";
const std::string k_time = k_fixtures + "/time.json";
// The fixtures' HTML-carrying strings, as written in the files.
const std::string k_evil_sweep_variant = "split9-<script>alert(\"x\")</script>&'evil'";
const std::string k_evil_time_variant = "vec_bytes8-<b onmouseover=\"x()\">&amp;'bold'</b>";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string render(const std::string& file) {
  const results::result_set doc = results::read_result_set(file);
  return report::render_html_report(doc).html;
}

/// Nothing is loaded from elsewhere: no src/href/xlink to another origin, no CSS url() or import.
void expect_self_contained(const std::string& html) {
  const std::regex external(R"re((src|href)\s*=\s*["']?\s*([a-zA-Z][a-zA-Z0-9+.-]*:|//))re",
                            std::regex::icase);
  std::smatch m;
  EXPECT_FALSE(std::regex_search(html, m, external)) << "external reference: " << m.str();
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 1u) << "one inline script, no other";
  EXPECT_EQ(html.find("<script src"), std::string::npos);
}

TEST(ReportHtml, SweepPageHasTwoPlotsPerModeTheWinnersAndTables) {
  const std::string html = render(k_sweep);
  // Two modes x (time per call + bandwidth).
  EXPECT_EQ(count(html, "<svg"), 4u);
  EXPECT_EQ(count(html, "</svg>"), 4u);
  EXPECT_NE(html.find("tokens per call (T)"), std::string::npos);
  EXPECT_NE(html.find("time per call (µs)"), std::string::npos);
  EXPECT_NE(html.find("share of the copy ceiling"), std::string::npos);
  // Decade tick labels on the log axes.
  for (const char* tick : {">1</text>", ">10</text>", ">100</text>", ">1000</text>"}) {
    EXPECT_NE(html.find(tick), std::string::npos) << tick;
  }
  // The winners and the reference are named in the legend, the dispatch table and hover titles.
  for (const char* v :
       {"split3-unroll1-threads256", "split1-unroll3-threads256", "split1-unroll1-threads128"}) {
    EXPECT_GE(count(html, v), 6u) << v;
  }
  EXPECT_NE(html.find("winner T 1–64"), std::string::npos);
  EXPECT_NE(html.find("winner T 512–4096"), std::string::npos);
  EXPECT_NE(html.find("<h3>Dispatch ranges</h3>"), std::string::npos);
  EXPECT_EQ(count(html, "<table class=\"sortable\">"), 1u + 2u * 2u);  // summary + 2 per mode
  EXPECT_NE(html.find("<title>"), std::string::npos);
  // The context header and the plan.
  for (const char* fact : {"sm_90a", "132", "f1x7u4e00000", "2026-11-30T00:00:00Z", "minimum gain",
                           "2%", "1, 8, 64, 512, 4096"}) {
    EXPECT_NE(html.find(fact), std::string::npos) << fact;
  }
  expect_self_contained(html);
}

TEST(ReportHtml, EscapesEveryStringFromTheFile) {
  const std::string sweep = render(k_sweep);
  EXPECT_EQ(sweep.find(k_evil_sweep_variant), std::string::npos);
  EXPECT_EQ(sweep.find("<script>alert"), std::string::npos);
  EXPECT_NE(
      sweep.find("split9-&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;evil&#39;"),
      std::string::npos);
  EXPECT_NE(sweep.find("NVIDIA H200 &lt;test &amp; &quot;fixture&quot;&gt;"), std::string::npos);
  EXPECT_NE(sweep.find("a&lt;b&gt;&amp;c&#39;.json"), std::string::npos);
  EXPECT_EQ(sweep.find("<b>"), std::string::npos);

  const std::string time = render(k_time);
  EXPECT_EQ(time.find(k_evil_time_variant), std::string::npos);
  EXPECT_EQ(time.find("<b onmouseover"), std::string::npos);
  EXPECT_NE(
      time.find(
          "vec_bytes8-&lt;b onmouseover=&quot;x()&quot;&gt;&amp;amp;&#39;bold&#39;&lt;/b&gt;"),
      std::string::npos);
}

TEST(ReportHtml, UnlaunchableVariantsAreShownApartInGrey) {
  // The fixture plus a variant the GPU could not launch at T=1 and T=8 (never measured), and a
  // finalist at T=64 whose verification found it unlaunchable (timed, not qualified).
  results::result_set doc = results::read_result_set(k_sweep);
  const std::string why =
      "unlaunchable at T1-H16: needs 240 KiB of shared memory per CTA (0 KiB static, 240 KiB "
      "dynamic), the device allows 227 KiB & <more>";
  for (long long t : {8, 1}) {
    results::record r = doc.records.front();
    r.variant = "split8-unroll1-threads1024";
    r.reference = false;
    r.tokens = t;
    r.status = results::status::unlaunchable;
    r.reason = why;
    r.verified.reset();
    r.stats.reset();
    r.samples_us.clear();
    doc.records.push_back(r);
  }
  for (auto& r : doc.records) {
    if (r.mode == "bf16" && r.tokens == 64 && r.variant == "split4-unroll1-threads256") {
      r.status = results::status::unlaunchable;
      r.verified = results::verification{results::status::unlaunchable};
    }
  }
  const std::string html = report::render_html_report(doc).html;
  EXPECT_EQ(count(html, "Unlaunchable on this GPU (2 variants"), 1u) << "one panel, two variants";
  EXPECT_NE(html.find("1, 8"), std::string::npos) << "the counts where it could not be launched";
  EXPECT_NE(html.find("the device allows 227 KiB &amp; &lt;more&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<more>"), std::string::npos);
  EXPECT_NE(html.find("tr.skip td{"), std::string::npos) << "the grey row style";
  EXPECT_EQ(count(html, "<tr class=\"skip\">"), 3u)
      << "two in the unlaunchable table, the finalist in the records";
  EXPECT_NE(html.find("screened out or could not be launched"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 4u) << "the plots are unchanged";
}

// Issue 25, item 5: a record that was never timed (unlaunchable) has no bandwidth: its CSV cells
// are empty, not 0, so a mean over the column is not dragged down; a timed record keeps both.
TEST(ReportCsv, AnUnlaunchableRecordsBandwidthAndFractionAreEmpty) {
  results::result_set doc = results::read_result_set(k_sweep);
  ASSERT_TRUE(doc.records.front().stats);
  results::record r = doc.records.front();
  r.variant = "split8-unroll1-threads1024";
  r.reference = false;
  r.status = results::status::unlaunchable;
  r.reason = "needs 240 KiB of shared memory per CTA";
  r.verified.reset();
  r.stats.reset();
  r.samples_us.clear();
  r.achieved_tb_s = 0;  // as a sweep writes an untimed record
  r.fraction_of_ceiling = 0;
  doc.records.push_back(r);
  const std::vector<std::string> lines = split(report::records_csv(doc), '\n');
  const std::vector<std::string> header = split(lines.front(), ',');
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  // split() drops empty items, so read the cells by hand.
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') {
        out.emplace_back();
      } else {
        out.back().push_back(c);
      }
    }
    return out;
  };
  const std::vector<std::string> timed = cells(lines[1]), unlaunchable = cells(lines.back());
  ASSERT_TRUE(test::contains(lines.back(), ",unlaunchable,")) << lines.back();
  for (const char* name : {"achieved_tb_s", "fraction_of_ceiling"}) {
    ASSERT_LT(column(name), timed.size()) << name;
    EXPECT_FALSE(timed[column(name)].empty()) << name;
    EXPECT_EQ(unlaunchable[column(name)], "") << name << ": " << lines.back();
  }
  EXPECT_FALSE(unlaunchable[column("bytes_moved")].empty()) << "what a call moves is known untimed";
}

TEST(ReportHtml, TimePageHasABarChartAndATable) {
  const std::string html = render(k_time);
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_NE(html.find("median time per call (µs), whiskers p10–p90"), std::string::npos);
  EXPECT_NE(html.find("achieved bandwidth (TB/s)"), std::string::npos);
  EXPECT_NE(html.find("copy_example · default · T=4096"), std::string::npos);
  // Fastest first, in the chart and in the table.
  const std::size_t fastest = html.find("vec_bytes16-unroll2-threads256");
  const std::size_t slowest = html.find("vec_bytes4-unroll1-threads128");
  ASSERT_NE(fastest, std::string::npos);
  ASSERT_NE(slowest, std::string::npos);
  EXPECT_LT(fastest, slowest);
  EXPECT_NE(html.find("fastest"), std::string::npos);
  EXPECT_NE(html.find("reference"), std::string::npos);
  EXPECT_NE(html.find("12345"), std::string::npos) << "the subject's seed";
  EXPECT_NE(html.find("graph"), std::string::npos) << "the timing mode";
  EXPECT_EQ(count(html, "<table class=\"sortable\">"), 2u);
  expect_self_contained(html);
}

TEST(ReportHtml, SameInputSameBytes) {
  EXPECT_EQ(render(k_sweep), render(k_sweep));
  EXPECT_EQ(render(k_time), render(k_time));
}

TEST(ReportCli, WritesThePageAndExitsTwoOnBadInputOrOutput) {
  test::temp_dir tmp;
  const std::string out = (tmp.path() / "r.html").string();
  auto r = run_kk3tune({"report", k_sweep, "--html", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 plots"), std::string::npos) << r.output;
  const std::string first = read_file(out);
  EXPECT_EQ(first, render(k_sweep));
  r = run_kk3tune({"report", k_sweep, "--html", out});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(out), first) << "the same bytes again";
  EXPECT_TRUE(std::filesystem::is_regular_file(out));
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) {
    EXPECT_EQ(e.path().filename(), "r.html") << "a temporary left behind: " << e.path();
  }

  EXPECT_EQ(run_kk3tune({"report", k_time, "--html", out}).exit_code, 0);
  EXPECT_EQ(
      run_kk3tune({"report", (tmp.path() / "missing.json").string(), "--html", out}).exit_code, 2);
  test::write_text(tmp.path() / "bad.json", "{\"schema_version\": 1, \"kind\": \"sweep\", ");
  r = run_kk3tune({"report", (tmp.path() / "bad.json").string(), "--html", out});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
  r = run_kk3tune({"report", k_time, "--html", (tmp.path() / "no" / "such" / "r.html").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("io error"), std::string::npos) << r.output;
  EXPECT_EQ(run_kk3tune({"report", k_time}).exit_code, 2) << "--html is required";
}

/// The first of chromium, chromium-browser, google-chrome on PATH ($KK3_CHROMIUM first).
std::string find_chromium() {
  if (const char* env = std::getenv("KK3_CHROMIUM"); env && *env) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const auto r = run_command(std::string("command -v ") + name);
    if (r.exit_code == 0) return trim(r.output);
  }
  return "";
}

/// png_stats.py's "name value" lines.
std::map<std::string, double> png_stats(const std::string& png, const std::string& args) {
  const auto r =
      run_command("python3 " + shell_quote(KK3_PNG_STATS) + " " + shell_quote(png) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, double> stats;
  std::istringstream in(r.output);
  std::string name;
  double value;
  while (in >> name >> value) stats[name] = value;
  return stats;
}

/// Renders `html` with headless Chromium into a 1400 x 2000 screenshot.
std::string screenshot(const std::string& chromium, const std::filesystem::path& html,
                       const std::filesystem::path& dir) {
  const std::string png = (dir / (html.stem().string() + ".png")).string();
  const auto r =
      run_command("timeout 120 " + shell_quote(chromium) +
                  " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                  shell_quote((dir / "profile").string()) + " --screenshot=" + shell_quote(png) +
                  " --window-size=1400,2000 " + shell_quote("file://" + html.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(png)) << r.output;
  return png;
}

// Not skipped without Chromium: CI installs it (scripts/install-deps --tests), so a missing browser
// fails.
TEST(ReportChromium, DrawsThePlots) {
  const std::string chromium = find_chromium();
  ASSERT_FALSE(chromium.empty())
      << "no chromium on PATH (scripts/install-deps --tests installs Debian's "
         "chromium; KK3_CHROMIUM names another)";
  test::temp_dir tmp;
  const std::filesystem::path sweep_html = tmp.path() / "sweep.html",
                              time_html = tmp.path() / "time.html";
  ASSERT_EQ(run_kk3tune({"report", k_sweep, "--html", sweep_html.string()}).exit_code, 0);
  ASSERT_EQ(run_kk3tune({"report", k_time, "--html", time_html.string()}).exit_code, 0);

  // The sweep: the first plot sits below the context and the summary. Its pixels carry the
  // winners' colours (palette 0 and 1: range strips, thick strokes, markers), which nothing else
  // on the page has in bulk (the dispatch table's swatches are 10 x 10), and the many shades of
  // anti-aliased lines over the grid; the page with its SVGs emptied has about 180 pixels of each
  // and 1300 colours.
  const std::string sweep_png = screenshot(chromium, sweep_html, tmp.path());
  auto s = png_stats(sweep_png, "--region 0,600,1400,1400 --color e4572e --color 2e86ab");
  EXPECT_EQ(s["width"], 1400);
  EXPECT_EQ(s["height"], 2000);
  EXPECT_GT(s["distinct"], 3000) << "anti-aliased lines, markers and text give many colours";
  EXPECT_GT(s["nonwhite"], 0.03);
  EXPECT_GT(s["color_e4572e"], 1500) << "the first winner's strip, stroke and markers";
  EXPECT_GT(s["color_2e86ab"], 1500) << "the second winner's";

  // The time file: the green fastest bar, the indigo reference bar, the blue other bars.
  const std::string time_png = screenshot(chromium, time_html, tmp.path());
  s = png_stats(time_png, "--region 0,0,1400,1400 --color 2f9e44 --color 7b9acc --color 44337a");
  EXPECT_EQ(s["width"], 1400);
  EXPECT_EQ(s["height"], 2000);
  EXPECT_GT(s["distinct"], 100);
  EXPECT_GT(s["color_2f9e44"], 300) << "the fastest bar";
  EXPECT_GT(s["color_7b9acc"], 1000) << "the other bars";
  EXPECT_GT(s["color_44337a"], 300) << "the reference bar";
}

}  // namespace
}  // namespace kk3
