#include "cli/app.hpp"

#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/version.hpp"

namespace kk3::cli {

void add_cache_options(CLI::App* cmd, cache_options& o) {
  cmd->add_option("--cache-dir", o.cache_dir, "compile cache folder (default: $XDG_CACHE_HOME/kk3tune or ~/.cache/kk3tune)");
  cmd->add_flag("--no-cache", o.no_cache, "compile everything; read and write no cache");
}

CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<long long> v = parse_integer(text);
        if (!v || *v < 1) return "'" + text + "': expected a positive integer";
        return {};
      },
      "POSITIVE");
}

int run(int argc, char** argv) {
  CLI::App app{"kk3tune: autotuner and benchmarker for the Kimi-K3 decode-path CUDA kernels"};
  app.set_version_flag("--version", tool_version_line());
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 regression or verification failure, 2 bad usage or input,\n"
      "3 device or compile environment problem.");

  global_options global;
  global.argv.assign(argv, argv + argc);
  app.add_option("--kernel-dir", global.kernel_dir, "folder of the NVRTC kernel sources (kernels/)");
  app.add_option("--config-dir", global.config_dir, "folder of the family configs (configs/)");

  int exit_code = k_exit_ok;
  add_doctor_command(app, global, exit_code);
  add_list_command(app, global, exit_code);
  add_compile_command(app, global, exit_code);
  add_verify_command(app, global, exit_code);
  add_time_command(app, global, exit_code);
  add_profile_command(app, global, exit_code);
  add_sweep_command(app, global, exit_code);
  add_merge_command(app, global, exit_code);
  add_emit_command(app, global, exit_code);
  add_compare_command(app, global, exit_code);
  add_report_command(app, global, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int printed = app.exit(e);  // prints help, version or the error
    return printed == 0 ? k_exit_ok : k_exit_usage;
  }
  return exit_code;
}

}  // namespace kk3::cli
