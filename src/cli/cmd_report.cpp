// `kk3tune report RESULTS.json --html FILE`: a self-contained HTML page with SVG plots of a
// result file (a sweep or a `time --json` file).
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/text.hpp"
#include "report/html_report.hpp"
#include "report/records_csv.hpp"
#include "results/reader.hpp"

namespace kk3::cli {
namespace {

struct report_options {
  std::filesystem::path input;  ///< the result file
  std::filesystem::path html;   ///< --html FILE
  std::filesystem::path csv;    ///< --csv FILE
};

int run_report(const report_options& o) {
  // Refuse an output folder that is missing or read-only before reading a large input.
  if (o.html.empty() && o.csv.empty())
    throw error(error_kind::usage, "report: give --html FILE, --csv FILE or both");
  file_roles files;
  files.input("results", o.input);
  files.output("--html", o.html);
  files.output("--csv", o.csv);
  files.check();
  if (!o.html.empty()) require_output_file(o.html, "--html " + o.html.string());
  if (!o.csv.empty()) require_output_file(o.csv, "--csv " + o.csv.string());
  const results::result_set doc = results::read_result_set(o.input);
  if (!o.csv.empty()) {
    write_file_atomic(o.csv, report::records_csv(doc));
    std::cout << "wrote " << o.csv.string() << "  (" << doc.records.size() << " records as CSV)\n";
  }
  if (o.html.empty()) return k_exit_ok;
  const report::html_report page = report::render_html_report(doc);
  write_file_atomic(o.html, page.html);
  if (doc.kind == "sweep" && !doc.timed())
    std::cout << "note: " << o.input.string()
              << " is an untimed sweep (compiled only, no GPU): the page is its resource report\n";
  std::cout << "wrote " << o.html.string() << "  (" << doc.kind << " result, " << doc.records.size()
            << " records, " << page.plots << " plots, " << (page.html.size() + 1023) / 1024
            << " KiB)\n";
  return k_exit_ok;
}

}  // namespace

void add_report_command(CLI::App& app, const global_options&, int& exit_code) {
  auto o = std::make_shared<report_options>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report with SVG plots of a result file");
  cmd->add_option("results", o->input, "a result JSON file (kind \"sweep\" or \"time\")")
      ->required();
  cmd->add_option("--html", o->html, "the HTML file to write (atomically)");
  cmd->add_option("--csv", o->csv,
                  "the records as CSV, one row per record and one column per knob (for pandas)");
  cmd->footer(
      "A sweep gets, per family, mode and model shape, time per call against the token count for\n"
      "every variant with the dispatch ranges and winners, the winners' share of the bandwidth\n"
      "ceiling, and sortable tables; a time file a bar chart of its variants and a table. The "
      "page\n"
      "loads nothing from the network, and the same input gives the same bytes. An untimed sweep\n"
      "(compiled without a GPU) gets its resource report: registers, spills, shared memory and\n"
      "the theoretical occupancy on the H200 (sm_90a) and the B200 (sm_100a) per variant.\n"
      "Exit codes: 0 written, 2 bad flag or input (a truncated or mistyped file, --html and --csv\n"
      "naming one file or the input); nothing is written then.");
  cmd->callback([&exit_code, o] { exit_code = run_report(*o); });
}

}  // namespace kk3::cli
