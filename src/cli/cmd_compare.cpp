// `kk3tune compare BASE.json NEW.json`: two result files of one kind, record by record; exit 1
// on a regression (a slower record or a verification regression).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "compare/comparison.hpp"
#include "compare/comparison_text.hpp"
#include "core/error.hpp"
#include "report/comparison_json.hpp"
#include "report/result_reader.hpp"

namespace kk3::cli {
namespace {

struct compare_cli_options {
  std::string base, next;        ///< the two result files
  std::string threshold = "5%";  ///< --threshold, in percent
  double alpha = 0.05;           ///< --alpha
  std::string format = "table";  ///< --format table|markdown|json
  bool allow_device_mismatch = false;
  bool all = false;  ///< --all
};

/// "5%", "5" or "2.5%": a percentage, as a fraction.
int run_compare(const compare_cli_options& o) {
  compare::compare_options options;
  options.timing.threshold = percent_flag(o.threshold, "--threshold", 0, 1000, true);
  if (!(o.alpha > 0 && o.alpha < 1)) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", o.alpha);
    throw error(error_kind::usage,
                std::string("--alpha ") + shown + ": expected a number between 0 and 1");
  }
  options.timing.alpha = o.alpha;
  options.allow_device_mismatch = o.allow_device_mismatch;

  const report::result_document base = report::read_result_document(o.base);
  const report::result_document next = report::read_result_document(o.next);
  const compare::comparison c = compare::compare_documents(base, next, options);

  compare::listing_options listing;
  listing.all = o.all;
  if (o.format == "json") {
    std::cout << report::comparison_json(c);
  } else if (o.format == "markdown") {
    std::cout << compare::format_markdown(c, listing);
  } else {
    std::cout << compare::format_table(c, listing);
  }
  return c.exit_code();
}

}  // namespace

void add_compare_command(CLI::App& app, const global_options&, int& exit_code) {
  auto o = std::make_shared<compare_cli_options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two result files record by record (exit 1 on a regression)");
  cmd->add_option("base", o->base, "the baseline result JSON (kk3tune time --json or sweep)")
      ->required();
  cmd->add_option("new", o->next, "the result JSON to check against it, of the same kind")
      ->required();
  cmd->add_option("--threshold", o->threshold,
                  "a median that moved by more than this is a change (percent; default 5%)");
  cmd->add_option(
      "--alpha", o->alpha,
      "significance level of the Mann-Whitney U test on the raw samples (default 0.05)");
  cmd->add_option("--format", o->format, "table (default), markdown (a CI job summary) or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}));
  cmd->add_flag("--allow-device-mismatch", o->allow_device_mismatch,
                "compare files measured on different GPUs (refused otherwise, exit 2)");
  cmd->add_flag("--all", o->all, "list every record, not only the changed ones");
  cmd->footer(
      "Records are matched by family, mode, shape (tokens and the family's dimensions) and variant. A record\n"
      "timed in both files is slower or faster when its median (from the statistics block) moved\n"
      "by more than the threshold and the move is significant: a Mann-Whitney U test on the raw\n"
      "samples when both sides have 3 or more that agree with their statistics, else disjoint\n"
      "intervals median +- 2 standard errors; a move beyond the threshold that is not significant\n"
      "is noisy. Sweeps are also checked for verification regressions (ok before, mismatch,\n"
      "pdl_hazard, launch_failed, timeout, compile_failed or unlaunchable now; the last four also\n"
      "when the record ran in BASE) and dispatch changes. A record unlaunchable in both files is\n"
      "no regression.\n"
      "Exit codes: 0 no regression; 1 a slower record or a verification regression; 2 an\n"
      "unreadable or truncated file, another schema_version, two kinds, or two GPUs.");
  cmd->callback([&exit_code, o] { exit_code = run_compare(*o); });
}

}  // namespace kk3::cli
