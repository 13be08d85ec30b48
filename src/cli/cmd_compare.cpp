// `kk3tune compare BASE.json NEW.json`: two result files of one kind, record by record; exit 1
// on a regression (a slower record or a verification regression).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "compare/comparison.hpp"
#include "compare/comparison_json.hpp"
#include "compare/comparison_text.hpp"
#include "core/error.hpp"
#include "results/reader.hpp"

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

  const results::result_set base = results::read_result_set(o.base);
  const results::result_set next = results::read_result_set(o.next);
  const compare::comparison c = compare::compare_documents(base, next, options);

  compare::listing_options listing;
  listing.all = o.all;
  if (o.format == "json") {
    std::cout << compare::comparison_json(c);
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
  CLI::App* cmd =
      app.add_subcommand("compare",
                         "Compare two result files: two sweeps by what ships at each token count, "
                         "two time results record by record (exit 1 on a regression)");
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
  cmd->add_flag("--all", o->all,
                "list every token count and every record (screening rounds, variants that win "
                "nothing), not only the changes");
  cmd->footer(
      "Two sweeps: the verdict is on what ships. At each token count of each dispatch table, NEW's "
      "winner\n"
      "is compared with BASE's, each timed by its own file's final round: slower (a regression) or "
      "faster\n"
      "when its median moved by more than the threshold and by more than the plans' noise (their "
      "sigmas\n"
      "times the combined standard errors, each at least the plans' noise floor, as the sweep's "
      "own\n"
      "selection does); lost (a regression) when NEW swept the table and has no winner there. A "
      "record ok\n"
      "in BASE that fails verification in NEW (mismatch, pdl_hazard, launch_failed, timeout,\n"
      "compile_failed, or unlaunchable where it ran in BASE) is a regression too. Records of "
      "screening\n"
      "rounds and of variants that win nothing are listed only with --all.\n"
      "Two time results: record by record, matched by family, mode, shape and variant; a record "
      "whose\n"
      "median moved by more than the threshold is slower or faster when the move is significant "
      "(a\n"
      "Mann-Whitney U test on the raw samples when both sides have 3 or more that agree with "
      "their\n"
      "statistics, else disjoint intervals median +- 2 standard errors), noisy when it is not.\n"
      "Exit codes: 0 no regression; 1 a regression; 2 an unreadable or truncated file, another\n"
      "schema_version, two kinds, two GPUs, an untimed sweep (compiled without a GPU: nothing to\n"
      "compare), or two sweeps with no count timed comparably (another objective: make the\n"
      "baseline again).\n");
  cmd->callback([&exit_code, o] { exit_code = run_compare(*o); });
}

}  // namespace kk3::cli
