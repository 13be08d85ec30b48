// `kk3tune emit`: the dispatch headers (kk3tune/dispatch/<family>.h) from sweep results.
#include <algorithm>
#include <iostream>
#include <set>

#include "cli/commands.hpp"
#include "codegen/dispatch_tables.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "families/registry.hpp"
#include "results/reader.hpp"

namespace kk3::cli {
namespace {

struct emit_options {
  std::vector<std::string>
      inputs;                 ///< result files; those of another kind than "sweep" are skipped
  std::filesystem::path out;  ///< --out DIR: headers go to DIR/kk3tune/dispatch/<family>.h
  bool allow_reference_only =
      false;  ///< --allow-reference-only: may replace a file with a header without tables
};

/// Whether a header's text has a table from a sweep: its is_tuned() returns true for some
/// architecture. A file without is_tuned() is no kk3tune dispatch header, and nothing says that
/// it has none: it counts as having tables.
bool has_sweep_tables(const std::string& header_text) {
  const auto begin = header_text.find("constexpr bool is_tuned(");
  if (begin == std::string::npos) return true;
  const auto end = header_text.find("\n}", begin);
  return header_text.substr(begin, end - begin).find("return true;") != std::string::npos;
}

/// The sweeps among the inputs; a line on stderr for each other file. Throws error(input)
/// naming every file and why when there are inputs and none is a timed sweep.
std::vector<results::result_set> read_sweeps(const std::vector<std::string>& inputs) {
  std::vector<results::result_set> sweeps;
  std::vector<std::string> skipped;
  for (const std::string& input : inputs) {
    results::result_set r = results::read_result_set(input, results::reading::tables);
    if (r.not_a_sweep.empty()) {
      if (dirty_revision(r.context.git_revision)) {
        std::cerr << "emit: warning: " << input << " was swept by a build of a tree with "
                  << "uncommitted changes (git " << r.context.git_revision
                  << "): its tables trace to no commit (the header's provenance says so); sweep "
                  << "again with a build of a clean commit\n";
      }
      sweeps.push_back(std::move(r));
    } else {
      skipped.push_back(input + ": " + r.not_a_sweep);
    }
  }
  if (!inputs.empty() && sweeps.empty()) {
    throw error(error_kind::input,
                "emit: no input is a timed sweep, so there is no table to emit (" +
                    join(skipped, "; ") + "); nothing was written");
  }
  for (const std::string& s : skipped) std::cerr << "emit: skipped " << s << "\n";
  return sweeps;
}

/// Refuses, before anything is written, to replace a file with a header that has no table from
/// a sweep (every select() gives the reference), unless --allow-reference-only: with inputs, any
/// file; with none (the bootstrap, which the build runs into its own folder), a file that has
/// tables from a sweep.
void refuse_reference_only(const emit_options& o,
                           const std::vector<codegen::emitted_header>& headers,
                           const std::set<std::string>& tabled) {
  if (o.allow_reference_only) return;
  std::vector<std::string> refused;
  for (const codegen::emitted_header& h : headers) {
    const std::filesystem::path file = o.out / h.relative;
    std::error_code ec;
    if (tabled.count(h.family) || !std::filesystem::exists(file, ec)) continue;
    if (!o.inputs.empty()) {
      refused.push_back(file.string() + " (no input has a table of " + h.family + ")");
    } else if (has_sweep_tables(read_file(file))) {
      refused.push_back(file.string() + " (it has tables from a sweep; no input was given)");
    }
  }
  if (refused.empty()) return;
  throw error(
      error_kind::usage,
      "emit would replace " + join(refused, ", ") +
          " with a header without tables, whose select() returns the reference variant everywhere; "
          "give a sweep of the family, or --allow-reference-only to write it anyway; nothing was "
          "written");
}

int run_emit(const global_options& global, const emit_options& o) {
  // Read and check everything before writing anything; first, that the output can be written
  // (its folder is created when missing).
  require_writable_folder(o.out, "--out " + o.out.string(), /*may_create=*/true);
  const std::vector<results::result_set> sweeps = read_sweeps(o.inputs);
  if (sweeps.empty())
    std::cerr << "emit: no input: every table falls back to the reference variant\n";

  // The families a sweep gives tables of (a test family gets a header only from one).
  std::set<std::string> swept;
  for (const results::result_set& s : sweeps) {
    for (const results::dispatch_entry& d : s.dispatch) swept.insert(d.family);
  }
  const located_dir configs = find_config_dir(global.config_dir);
  std::vector<families::family_space> spaces;
  for (const families::family* f : families::select_families("", false)) {
    // A test family gets a header only from a sweep of it (a product family always gets one).
    if (f->is_test() && !swept.count(f->name())) continue;
    spaces.push_back(families::load_family_space(*f, configs.dir));
  }
  std::vector<std::string> notes;
  std::vector<codegen::emitted_header> headers;
  try {
    headers = codegen::build_dispatch_headers(spaces, sweeps, notes);
  } catch (const error& e) {
    // Its usage errors are about the inputs (their tables, their configs, two with one table).
    if (e.kind() != error_kind::usage) throw;
    throw error(error_kind::input, e.what());
  }
  for (const std::string& note : notes) std::cerr << "emit: " << note << "\n";
  // The families that got a table (a sweep's tables that do not match the current config give
  // none: the notes say so).
  std::set<std::string> tabled;
  for (const codegen::emitted_header& h : headers) {
    if (h.tabled) tabled.insert(h.family);
  }
  if (!sweeps.empty() && tabled.empty()) {
    throw error(error_kind::input,
                "emit: no input has a table that matches the current configs (the lines above "
                "say why); nothing was written");
  }
  refuse_reference_only(o, headers, tabled);
  file_roles files;  // no header may be one of the inputs or the configs
  for (const std::string& input : o.inputs) files.input("results", input);
  files.input_folder("--config-dir", configs.dir);
  files.input_folder("--kernel-dir", find_kernel_dir(global.kernel_dir).dir);
  for (const codegen::emitted_header& h : headers) files.output("--out", o.out / h.relative);
  files.check();

  for (const codegen::emitted_header& h : headers) {
    const std::filesystem::path file = o.out / h.relative;
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw error(error_kind::io,
                  file.parent_path().string() + ": cannot be created (" + ec.message() + ")");
    write_file_atomic(file, h.text);
    std::cout << "wrote " << file.string() << "  (" << h.summary << ")\n";
  }
  return k_exit_ok;
}

}  // namespace

void add_emit_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<emit_options>();
  CLI::App* cmd = app.add_subcommand(
      "emit", "Write the dispatch headers (kk3tune/dispatch/<family>.h) from sweep results");
  cmd->add_option(
      "results", o->inputs,
      "result JSON files; each is read, those not of kind \"sweep\" are skipped (when none is a "
      "timed sweep, emit exits 2). "
      "The tables (family, architecture sm_90/sm_100, mode, model shape) of all inputs are "
      "combined; two "
      "inputs with the same table are refused (exit 2); a family's tables that do not match its "
      "current config (a sweep from before the config changed) are skipped, naming the file and "
      "why (when no table is left, emit exits 2); a table no input gives selects the "
      "reference variant");
  cmd->add_option("--out", o->out, "output folder: writes DIR/kk3tune/dispatch/<family>.h")
      ->required();
  cmd->add_flag("--allow-reference-only", o->allow_reference_only,
                "write a header that no input gives a table for (select() returns the reference "
                "variant everywhere) "
                "over an existing file; without it emit refuses (exit 2, nothing written)");
  cmd->footer(
      "The headers depend only on the inputs' contents and the configs: emitting the same inputs "
      "again,\n"
      "in any order, gives the same bytes.\n"
      "A header without tables never replaces an existing file unless --allow-reference-only: "
      "with\n"
      "inputs, not any file; with no inputs (the bootstrap: reference-only headers for every "
      "family),\n"
      "not a header that has tables from a sweep (one without, as the build writes, is "
      "rewritten).\n"
      "Exit codes: 0 written, 2 bad flag or input (no timed sweep, a truncated or mistyped file,\n"
      "a header that would replace an input); nothing is written then.");
  cmd->callback([&global, &exit_code, o] { exit_code = run_emit(global, *o); });
}

}  // namespace kk3::cli
