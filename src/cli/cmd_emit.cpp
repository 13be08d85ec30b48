// `kk3tune emit`: the dispatch headers (kk3tune/dispatch/<family>.h) from sweep results.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "codegen/dispatch_tables.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "families/registry.hpp"
#include "report/sweep_reader.hpp"

namespace kk3::cli {
namespace {

struct emit_options {
  std::vector<std::string>
      inputs;                 ///< result files; those of another kind than "sweep" are skipped
  std::filesystem::path out;  ///< --out DIR: headers go to DIR/kk3tune/dispatch/
};

int run_emit(const global_options& global, const emit_options& o) {
  // Read and check everything before writing anything; first, that the output can be written
  // (its folder is created when missing).
  require_writable_folder(o.out, "--out " + o.out.string(), /*may_create=*/true);
  std::vector<report::sweep_file> sweeps;
  for (const std::string& input : o.inputs) {
    report::result_file r = report::read_result_file(input);
    if (!r.sweep) {
      std::cerr << "emit: skipped " << input << ": " << r.not_a_sweep << "\n";
      continue;
    }
    sweeps.push_back(std::move(*r.sweep));
  }
  if (sweeps.empty()) {
    std::cerr << "emit: no sweep result among the inputs: every table falls back to the reference "
                 "variant\n";
  }

  const located_dir configs = find_config_dir(global.config_dir);
  std::vector<families::family_space> spaces;
  for (const families::family* f : families::select_families("", false)) {
    // A test family gets a header only from a sweep of it (a product family always gets one).
    const bool swept = std::any_of(sweeps.begin(), sweeps.end(), [&](const report::sweep_file& s) {
      return std::any_of(s.dispatch.begin(), s.dispatch.end(), [&](const auto& d) { return d.family == f->name(); });
    });
    if (f->is_test() && !swept) continue;
    spaces.push_back(families::load_family_space(*f, configs.dir));
  }
  std::vector<std::string> notes;
  const std::vector<codegen::emitted_header> headers =
      codegen::build_dispatch_headers(spaces, sweeps, notes);
  for (const std::string& note : notes) std::cerr << "emit: " << note << "\n";

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
      "result JSON files; each is read, those not of kind \"sweep\" are skipped. The tables "
      "(family, architecture sm_90/sm_100, mode, model shape) of all inputs are combined; two "
      "inputs with the same table are refused (exit 2); a table no input gives selects the "
      "reference variant");
  cmd->add_option("--out", o->out, "output folder: writes DIR/kk3tune/dispatch/<family>.h")
      ->required();
  cmd->footer(
      "The headers depend only on the inputs' contents and the configs: emitting the same inputs "
      "again,\n"
      "in any order, gives the same bytes.");
  cmd->callback([&global, &exit_code, o] { exit_code = run_emit(global, *o); });
}

}  // namespace kk3::cli
