#include "sweep/result_file.hpp"

#include <map>

#include "core/version.hpp"
#include "results/schema.hpp"
#include "results/sweep_file.hpp"
#include "timing/capture.hpp"

namespace kk3::sweep {

results::result_set result_set_of(const sweep_result& r) {
  results::result_set s;
  s.kind = "sweep";
  s.schema_version = results::k_schema_version;
  if (r.context) {
    s.context = *r.context;
  } else {  // no GPU: the build and the command line
    s.context.tool_version = tool_version();
    s.context.git_revision = git_revision();
    s.context.argv = r.argv;
    s.context.utc_time = timing::utc_now_iso8601();
  }
  results::plan_block& p = s.plan.emplace();
  p.config = r.config.file.string();
  p.tokens = r.config.tokens;
  p.archs = r.archs;
  p.min_gain = r.config.selection.min_gain;
  p.noise_sigmas = r.config.selection.noise_sigmas;
  p.noise_floor = r.config.selection.noise_floor;
  p.timed = r.timed;
  p.copy_ceiling_tb_s = r.ceiling_tb_s;
  p.compiles = static_cast<long long>(r.compiles);
  p.compile_failures = static_cast<long long>(r.compile_failures);
  p.wall_s = r.wall_s;
  p.digest = r.plan_digest;
  p.baseline = r.baseline;
  p.items = r.items;
  if (!r.shard.whole())
    p.shard = results::shard_coverage{
        r.shard.index, r.shard.count, {r.shard_items.begin(), r.shard_items.end()}};
  s.families = r.families;

  std::map<std::string, results::knob_values> knobs_of;  // family/variant -> knobs
  s.records = r.records;
  for (results::record& rec : s.records) {
    knobs_of[rec.family + "/" + rec.variant] = rec.knobs;
    results::set_throughput(rec, r.ceiling_tb_s);
  }
  s.dispatch = r.dispatch;
  for (results::dispatch_entry& d : s.dispatch) {
    for (select::range& range : d.ranges) range.knobs = knobs_of[d.family + "/" + range.winner];
    d.baseline = d.summarize_baseline();
  }
  return s;
}

std::string sweep_json(const sweep_result& r) {
  return results::sweep_file_text(result_set_of(r));
}

}  // namespace kk3::sweep
