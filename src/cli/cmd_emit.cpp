// `kk3tune emit`: generated dispatch headers from sweep results (stub until the codegen lands).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kk3::cli {
void add_emit_command(CLI::App& app, const global_options&, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("emit", "Write the dispatch headers (kk3tune/dispatch/<family>.h) from sweep results");
  cmd->callback([&exit_code] { exit_code = k_exit_usage; });
}
}  // namespace kk3::cli
