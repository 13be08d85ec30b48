#pragma once
// CLI11's parse errors in kk3tune's words: what is wrong, named by its flag or argument and the
// subcommand, with a "did you mean" for a misspelt option, instead of CLI11's raw sentences
// ("The following argument was not expected", "Could not convert", "1 required TEXT missing").
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kk3::cli {

/// The message of a parse error of `app`'s command line, `command` being the subcommand it names
/// (null: none): an unknown option with the nearest option of that subcommand or the global
/// ones, a surplus argument with what the subcommand takes, a missing option or argument with
/// its description, an unreadable or disallowed value with what the option takes. Any other
/// error as CLI11 words it.
std::string parse_error_message(const CLI::ParseError& e, const CLI::App& app,
                                const CLI::App* command);

/// For a command line without a subcommand: "kk3tune has no option --versoin (did you mean
/// --version?)" for the first word of `args` (argv without argv[0]) that begins with '-' and
/// names no global option; empty when there is none.
std::string unknown_global_option(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace kk3::cli
