// `kk3tune merge`: the result files of a sharded sweep (`sweep --shard I/N`) into one file, equal
// to what the unsharded sweep would have written.
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/text.hpp"
#include "merge/merge.hpp"
#include "results/sweep_file.hpp"

namespace kk3::cli {
namespace {

struct merge_options {
  std::vector<std::string> inputs;  ///< the shards' result files, in any order
  std::filesystem::path out;        ///< --out FILE
};

int run_merge(const global_options& global, const merge_options& o) {
  // Everything is read and checked before the output is touched; the output is written
  // atomically, so a refused merge or a crash never leaves a partial file.
  file_roles files;
  for (const std::string& input : o.inputs) files.input("results", input);
  files.output("--out", o.out);
  files.check();
  require_output_file(o.out, "--out " + o.out.string());
  std::vector<merge::shard_input> shards;
  for (const std::string& input : o.inputs) shards.push_back(merge::read_shard(input));
  const results::result_set merged = merge::merge_shards(std::move(shards), global.argv);
  write_file_atomic(o.out, results::sweep_file_text(merged));
  std::cout << "wrote " << o.out.string() << "  (" << o.inputs.size() << " file(s), "
            << merged.plan->items.size() << " items, " << merged.records.size() << " records, "
            << merged.dispatch.size() << " tables)\n";
  return k_exit_ok;
}

}  // namespace

void add_merge_command(CLI::App& app, const global_options& global, int& exit_code) {
  auto o = std::make_shared<merge_options>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge the result files of a sharded sweep (sweep --shard I/N) into one result file");
  cmd->add_option("results", o->inputs, "the shards' sweep result files, in any order")->required();
  cmd->add_option("--out", o->out, "the merged result file to write")->required();
  cmd->footer(
      "The inputs must be shards of one plan (plan.digest) from one build, GPU and objective,\n"
      "together covering every item of the plan exactly once; otherwise merge exits 2 naming\n"
      "the files and the field, the item covered twice, or the items and shards missing.\n"
      "The merged file equals the unsharded sweep's but for context.argv and utc_time,\n"
      "plan.wall_s (the largest shard's), plan.shard (null) and plan.merged_from.\n"
      "Exit codes: 0 merged, 2 bad flag or input (shards that do not go together, a truncated or\n"
      "mistyped file, --out naming an input), 3 environment problem.");
  cmd->callback([&global, &exit_code, o] { exit_code = run_merge(global, *o); });
}

}  // namespace kk3::cli
