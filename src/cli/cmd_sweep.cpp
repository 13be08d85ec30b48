// `kk3tune sweep` (stub until the sweep lands).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kk3::cli {
void add_sweep_command(CLI::App& app, const global_options&, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("sweep", "Compile, verify and measure every variant at every shape, select the dispatch table");
  cmd->callback([&exit_code] { exit_code = k_exit_usage; });
}
}  // namespace kk3::cli
