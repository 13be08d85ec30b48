// `kk3tune compare` (stub until issue 7's compare lands).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kk3::cli {
void add_compare_command(CLI::App& app, const global_options&, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("compare", "Compare two result files record by record (exit 1 on a regression)");
  cmd->callback([&exit_code] { exit_code = k_exit_usage; });
}
}  // namespace kk3::cli
