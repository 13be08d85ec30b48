// `kk3tune report` (stub until issue 7's report lands).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kk3::cli {
void add_report_command(CLI::App& app, const global_options&, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("report", "Write a self-contained HTML report with SVG plots of a result file");
  cmd->callback([&exit_code] { exit_code = k_exit_usage; });
}
}  // namespace kk3::cli
