#pragma once
// Reading result files back: the sweep result (docs/sweep-result-format.md, kind "sweep",
// schema_version 1 or 2) as far as `kk3tune emit` needs it: the run's context, the families' knob
// lists and the dispatch tables. The records are not read.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/dims.hpp"
#include "results/json_fields.hpp"
#include "results/objective.hpp"

namespace kk3::results {

/// One token range of a sweep's dispatch table.
struct sweep_range {
  std::string at;            ///< its JSON pointer, e.g. "/dispatch/3/ranges/0", for messages
  long long min_tokens = 0;  ///< the first measured token count it covers
  long long max_tokens = 0;  ///< the last one
  std::string variant;       ///< the winner's id
  std::vector<std::pair<std::string, long long>> knobs;  ///< the winner's knobs, in file order
  std::string runner_up;        ///< the runner-up's id; empty when there was none
  double margin = 0;            ///< runner-up / winner - 1 (median over the range's tokens)
  bool incumbent_kept = false;  ///< the incumbent kept its place (challenger within noise)
};

/// One dispatch entry: a family's token ranges in one mode at one model shape.
struct sweep_dispatch {
  std::string at;  ///< its JSON pointer, e.g. "/dispatch/3"
  std::string family, mode;
  dims shape;                       ///< the model shape: the family's key dimensions
  std::vector<sweep_range> ranges;  ///< ascending token counts
};

/// What a sweep says about one family it covered.
struct sweep_family {
  std::string name;
  std::vector<std::string> knobs;       ///< the knob names in the config's order
  std::vector<std::string> shape_keys;  ///< the names of its key dimensions (["heads"])
  std::string
      shape_keys_field;  ///< where the file gives them: "shape_keys" (schema 2) or "shape_key"
  results::objective objective;  ///< what its selection minimised (schema 3; before: graph)
};

/// A sweep result file, as read back.
struct sweep_file {
  std::filesystem::path file;  ///< as given, for messages
  std::string digest;          ///< hash_hex of the file's bytes (32 hex digits)
  std::string gpu_name;        ///< context.gpu.name, e.g. "NVIDIA H200"
  std::string gpu_arch;        ///< context.gpu.arch, e.g. "sm_90a"
  std::string tool_version;    ///< context.tool_version of the sweep
  std::string git_revision;    ///< context.git_revision of the sweep
  std::string nvrtc_version;   ///< context.nvrtc_version; empty when absent
  std::string utc_time;        ///< context.utc_time, ISO 8601 (so later sorts later)
  std::string plan_digest;     ///< plan.digest (the shards of one plan share it); empty in files
                               ///< from before sharding
  long long shard_index = 0;   ///< plan.shard.index; 0 for an unsharded (or merged) file
  std::vector<sweep_family> families;
  std::vector<sweep_dispatch> dispatch;  ///< empty for an untimed sweep
};

/// A result file as read: a sweep, or why it is not one (another kind of result).
struct result_file {
  std::optional<sweep_file> sweep;
  std::string not_a_sweep;  ///< e.g. `kind "time", not a sweep`; empty for a sweep with tables
};

/// Reads a result file. Throws error(io) when it cannot be read and error(input) naming the
/// file and the JSON path when it is not valid JSON, or is a sweep with a missing or mistyped
/// field or a schema_version this kk3tune does not read. A valid JSON document of another kind (or
/// with no "kind") comes back with `not_a_sweep` set, and so does an untimed sweep (compiled
/// without a GPU: it has no tables).
[[nodiscard]] result_file read_result_file(const std::filesystem::path& file);

/// One entry of a sweep's "dispatch" list at `at`. Strict fields (emit) also require each range's
/// knobs, runner_up and margin and at least one range; lenient ones (compare, report) take what
/// is there.
sweep_dispatch read_sweep_dispatch(const json_fields& f, const nlohmann::ordered_json& d,
                                   const std::string& at);

}  // namespace kk3::results
