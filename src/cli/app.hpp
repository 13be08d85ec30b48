#pragma once
// The kk3tune command line: one executable, one subcommand per task.

namespace kk3::cli {

/// Parses the arguments and runs the chosen subcommand; returns the exit code. Usage errors
/// return 2; kk3::error from a subcommand propagates to main.
int run(int argc, char** argv);

}  // namespace kk3::cli
