#pragma once
// Subcommand registration. Each cmd_<name>.cpp adds one subcommand to the app; the callback
// stores its exit code in `exit_code`.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "results/context.hpp"

namespace kk3::cli {

/// Options every subcommand shares.
struct global_options {
  std::filesystem::path kernel_dir;  ///< --kernel-dir; empty = search (see core/paths.hpp)
  std::filesystem::path config_dir;  ///< --config-dir; empty = search
  int device = 0;                    ///< --device N: the GPU (device::select_gpu)
  std::vector<std::string> argv;     ///< the whole command line, for the result context
};

/// The command the user typed (results/context.hpp).
using results::typed_command;

/// The compile-cache flags of the subcommands that compile.
struct cache_options {
  std::filesystem::path cache_dir;  ///< --cache-dir; empty = the default folder
  bool no_cache = false;            ///< --no-cache
};
void add_cache_options(CLI::App* cmd, cache_options& o);

/// A check for count flags (--tokens): a whole number of at least 1, or "expected a positive
/// integer" (CLI::PositiveNumber's message prints the range of a double, 300 digits long).
CLI::Validator positive_integer();
/// The same for counts that may be 0 (--blocks): "expected an integer of at least 0".
CLI::Validator non_negative_integer();
/// `--tokens,-T`: a comma list of token counts, each a positive integer (sweep, verify).
void add_token_list_option(CLI::App* cmd, std::vector<long long>& tokens, const std::string& help);
/// The token counts of --tokens (each given value a comma-separated list), read as strictly as a
/// plan's /tokens: every element a positive integer, none empty, none twice. Throws
/// CLI::ValidationError naming the flag and the element.
std::vector<long long> token_list(const std::vector<std::string>& given);
/// A percent flag's value ("5%" or "5", both five percent) as a fraction, from `lo` to `hi`
/// percent; else error(usage) naming the flag. A bare value between 0 and 1 also prints a note
/// that it was read as percent (0.05 is 0.05%, not 5%), when `note_small` is set: where the
/// plan writes the same setting as a fraction.
double percent_flag(const std::string& text, const std::string& flag, double lo, double hi,
                    bool note_small);

/// `--mode` takes a family's modes only; timing modes go through `--timing`. Throws
/// error(usage) when `modes` (one mode or a comma list) names a timing mode (graph, isolated,
/// cold, chain), pointing at `--timing`. Given `family` (and the --config-dir flag's value), the
/// message lists that family's modes, when its config can be read.
void refuse_timing_mode(const std::string& modes, const std::string& family = {},
                        const std::filesystem::path& config_dir = {});

/// `--format text|json` (default text); `json_what` says what the JSON holds.
void add_text_or_json_option(CLI::App* cmd, std::string& format, const std::string& json_what);

/// Checks for number flags (seconds, percent): above 0, or at least 0, with a short message.
CLI::Validator positive_number();
CLI::Validator non_negative_number();

void add_doctor_command(CLI::App& app, const global_options& global, int& exit_code);
void add_list_command(CLI::App& app, const global_options& global, int& exit_code);
void add_compile_command(CLI::App& app, const global_options& global, int& exit_code);
void add_verify_command(CLI::App& app, const global_options& global, int& exit_code);
void add_time_command(CLI::App& app, const global_options& global, int& exit_code);
void add_profile_command(CLI::App& app, const global_options& global, int& exit_code);
void add_sweep_command(CLI::App& app, const global_options& global, int& exit_code);
void add_emit_command(CLI::App& app, const global_options& global, int& exit_code);
void add_merge_command(CLI::App& app, const global_options& global, int& exit_code);
void add_compare_command(CLI::App& app, const global_options& global, int& exit_code);
void add_report_command(CLI::App& app, const global_options& global, int& exit_code);

}  // namespace kk3::cli
