#pragma once
// `kk3tune merge`: the shards of one sweep plan (`sweep --shard I/N`) back into the result file
// one unsharded sweep would have written (docs/sweep-result-format.md, "Shards and merge").
//
// The stage works on the result model: each shard is read whole (results/reader.hpp), the models
// are merged, and the merged set is written by the sweep file's one writer
// (results/sweep_file.hpp), so the merged file has the bytes of one sweep that measured the same.
#include <filesystem>
#include <string>
#include <vector>

#include "results/result_set.hpp"

namespace kk3::merge {

/// One input of a merge: a sweep result file with the sharding fields (plan.digest, plan.items,
/// plan.shard), as read.
struct shard_input {
  results::result_set set;         ///< the whole file; set.file as given, for messages
  long long index = 0;             ///< shard I of I/N; 0 for an unsharded file
  long long count = 0;             ///< shard N of I/N; 0 for an unsharded file
  std::vector<std::size_t> items;  ///< indices into plan.items it covers, ascending
};

/// Reads one input. Throws error(io) when it cannot be read, error(input) naming the file and
/// the JSON path when it is not valid JSON, not a sweep, of another schema_version, or written
/// before sharding existed (no plan.digest, plan.items or plan.shard: re-run the sweep).
[[nodiscard]] shard_input read_shard(const std::filesystem::path& file);

/// The merged result set of `inputs` (in any order), with context.argv = `argv`. Throws
/// error(input) naming both files and the JSON path of each field where two inputs differ
/// (plan, build, GPU, objective, timed or not), an item covered twice, items covered by no
/// input (their keys and the missing shards), or a record or table outside its file's items.
[[nodiscard]] results::result_set merge_shards(std::vector<shard_input> inputs,
                                               const std::vector<std::string>& argv);

}  // namespace kk3::merge
