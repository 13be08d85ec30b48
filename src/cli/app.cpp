#include "cli/app.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/parse_errors.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "device/device_info.hpp"
#include "families/registry.hpp"
#include "results/objective.hpp"

namespace kk3::cli {

void add_cache_options(CLI::App* cmd, cache_options& o) {
  cmd->add_option("--cache-dir", o.cache_dir,
                  "compile cache folder (default: $XDG_CACHE_HOME/kk3tune or ~/.cache/kk3tune)");
  cmd->add_flag("--no-cache", o.no_cache, "compile everything; read and write no cache");
}

namespace {

/// Where the command line names its subcommand: the index of its first word that is neither an
/// option nor the value of a global option (argc when there is none).
int subcommand_index(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--kernel-dir" || a == "--config-dir" || a == "--device") {
      ++i;  // its value
    } else if (a.empty() || a[0] != '-') {
      return i;
    }
  }
  return argc;
}

/// The subcommand nearest to `word` (by edits, or one it begins), or "".
std::string nearest_subcommand(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
  return nearest_word(word, names);
}

/// The subcommand called `name`, or null.
const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* s : app.get_subcommands({})) {
    if (s->get_name() == name) return s;
  }
  return nullptr;
}

std::string subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
  return join(names, ", ");
}

CLI::Validator integer_from(long long least, long long most, const char* expected,
                            const char* name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<long long> v = parse_integer(text);
        if (!v || *v < least || *v > most) return "'" + text + "': expected " + expected;
        return {};
      },
      name);
}

CLI::Validator number_at_least(double least, bool strictly, const char* expected,
                               const char* name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v < least ||
            (strictly && v == least)) {
          return "'" + text + "': expected " + expected;
        }
        return {};
      },
      name);
}

}  // namespace

CLI::Validator positive_integer() {
  return integer_from(1, LLONG_MAX, "a positive integer", "POSITIVE");
}

CLI::Validator non_negative_integer() {
  return integer_from(0, LLONG_MAX, "an integer of at least 0", "NONNEGATIVE");
}

std::vector<long long> token_list(const std::vector<std::string>& given) {
  std::vector<long long> tokens;
  std::vector<std::string> elements;
  for (const std::string& text : given) {
    for (std::string& e : split_keeping_empty(text, ',')) elements.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const std::string at =
        "element " + std::to_string(i + 1) + " of " + std::to_string(elements.size());
    if (elements[i].empty()) throw CLI::ValidationError("--tokens", at + " is empty");
    const std::optional<long long> v = parse_integer(elements[i]);
    if (!v || *v < 1) {
      throw CLI::ValidationError("--tokens", "'" + elements[i] + "': expected a positive integer");
    }
    const auto seen = std::find(tokens.begin(), tokens.end(), *v);
    if (seen != tokens.end()) {
      throw CLI::ValidationError("--tokens", at + ": T=" + elements[i] +
                                                 " is given twice (also element " +
                                                 std::to_string(seen - tokens.begin() + 1) + ")");
    }
    tokens.push_back(*v);
  }
  return tokens;
}

void add_token_list_option(CLI::App* cmd, std::vector<long long>& tokens, const std::string& help) {
  cmd->add_option_function<std::vector<std::string>>(
         "--tokens,-T",
         [&tokens](const std::vector<std::string>& given) { tokens = token_list(given); }, help)
      ->type_name("INT,...");
}

double percent_flag(const std::string& text, const std::string& flag, double lo, double hi,
                    bool note_small) {
  const std::optional<double> v = parse_percent(text);
  if (!v || *v * 100 < lo || *v * 100 > hi) {
    throw error(error_kind::usage, flag + " " + text + ": expected a percentage such as 5% (" +
                                       format_number(lo) + "% to " + format_number(hi) + "%)");
  }
  const std::string t = trim(text);
  if (note_small && !t.empty() && t.back() != '%' && *v > 0 && *v < 0.01) {
    std::cerr << "kk3tune: note: " << flag << " " << t << " is read as " << t << "% (a fraction of "
              << format_number(*v) << "); write " << format_number(*v * 1e4)
              << "% for a fraction of " << t << "\n";
  }
  return *v;
}

void refuse_timing_mode(const std::string& modes, const std::string& family,
                        const std::filesystem::path& config_dir) {
  for (const std::string& m : split(modes, ',')) {
    for (const std::string& timing : results::timing_mode_names()) {
      if (m != timing) continue;
      std::string takes = "the family's modes: `kk3tune list` shows them";
      // The family's own modes where its config reads; a broken one is reported by the command.
      try {
        if (!family.empty()) {
          const families::family_space s = families::load_family_space(
              families::find_family(family), find_config_dir(config_dir).dir);
          std::string names;
          for (const space::mode& fm : s.config.modes)
            names += (names.empty() ? "" : ", ") + fm.name;
          takes = family + "'s modes: " + names;
        }
      } catch (const std::exception&) {
      }
      throw error(error_kind::usage, "--mode " + m + ": " + m +
                                         " is a timing mode, not a mode of a family; give it as "
                                         "--timing " +
                                         m + " (--mode takes " + takes + ")");
    }
  }
}

void add_text_or_json_option(CLI::App* cmd, std::string& format, const std::string& json_what) {
  cmd->add_option("--format", format, "text (default) or json (" + json_what + ")")
      ->check(CLI::IsMember({"text", "json"}));
}

CLI::Validator positive_number() {
  return number_at_least(0, true, "a number above 0", "POSITIVE");
}
CLI::Validator non_negative_number() {
  return number_at_least(0, false, "a number of at least 0", "NONNEGATIVE");
}

namespace {

/// The global options, and every subcommand, which sets `exit_code` when it runs.
void add_commands(CLI::App& app, global_options& global, int& exit_code) {
  app.add_option("--kernel-dir", global.kernel_dir,
                 "folder of the NVRTC kernel sources (kernels/)");
  app.add_option("--config-dir", global.config_dir, "folder of the family configs (configs/)");
  app.add_option(
         "--device", global.device,
         "the GPU to work on, by its number (default 0; under CUDA_VISIBLE_DEVICES, among those)")
      ->check(integer_from(0, 4095, "a GPU number: 0, 1, ...", "N"))
      ->each([](const std::string& text) { device::select_gpu(std::stoi(text)); });
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
}

/// `kk3tune help [WHAT]` (`word` is "help"), or a word that names no subcommand: the help asked
/// for, or a usage error naming the nearest subcommand. Returns the exit code.
int answer_unknown_word(const CLI::App& app, const std::string& word, const std::string& what) {
  if (word == "help") {
    if (const CLI::App* s = find_subcommand(app, what)) {
      std::cout << s->help(app.get_name());
      return k_exit_ok;
    }
    if (!what.empty()) {
      std::cerr << "kk3tune: usage error: help: no subcommand '" << what
                << "'; the subcommands: " << subcommand_names(app) << "\n";
      return k_exit_usage;
    }
    std::cout << app.help();
    return k_exit_ok;
  }
  const std::string near = nearest_subcommand(app, word);
  std::cerr << "kk3tune: usage error: no subcommand '" << word << "'"
            << (near.empty() ? "" : " (did you mean '" + near + "'?)")
            << "; the subcommands: " << subcommand_names(app) << "\n";
  return k_exit_usage;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"kk3tune: autotuner and benchmarker for the Kimi-K3 decode-path CUDA kernels",
               "kk3tune"};
  app.set_version_flag("--version", tool_version_line());
  app.require_subcommand(1);
  app.fallthrough();  // inherited by the subcommands: global options may follow the subcommand too
  app.footer(
      "Exit codes: 0 success, 1 regression or verification failure, 2 bad usage or input,\n"
      "3 device or compile environment problem.");

  global_options global;
  global.argv.assign(argv, argv + argc);
  int exit_code = k_exit_ok;
  add_commands(app, global, exit_code);

  // `kk3tune help [SUBCOMMAND]`, and a word that names no subcommand, before CLI11 sees them (it
  // would only say that a subcommand is required).
  const int at = subcommand_index(argc, argv);
  const std::string word = at < argc ? argv[at] : "";
  const CLI::App* named = word.empty() ? nullptr : find_subcommand(app, word);
  if (!word.empty() && !named)
    return answer_unknown_word(app, word, at + 1 < argc ? argv[at + 1] : "");

  // A misspelt global option before the subcommand (or with none), before CLI11 says only that a
  // subcommand is required or blames the subcommand.
  const std::string unknown =
      unknown_global_option(app, std::vector<std::string>(argv + 1, argv + at));
  if (!unknown.empty()) {
    std::cerr << "kk3tune: usage error: " << unknown << "\nRun 'kk3tune --help' for the options.\n";
    return k_exit_usage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e) == 0 ? k_exit_ok : k_exit_usage;  // --help, --version
    // Every usage error reads the same: "kk3tune: usage error: ...", and where to look.
    std::string what = parse_error_message(e, app, named);
    if (word.empty() && dynamic_cast<const CLI::RequiredError*>(&e)) {
      what = "a subcommand is required: kk3tune SUBCOMMAND [OPTIONS]; the subcommands: " +
             subcommand_names(app);
    }
    std::cerr << "kk3tune: usage error: " << what << "\n"
              << "Run 'kk3tune " << (named ? word + " " : std::string())
              << "--help' for the options.\n";
    return k_exit_usage;
  }
  return exit_code;
}

}  // namespace kk3::cli
