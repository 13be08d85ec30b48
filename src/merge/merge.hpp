#pragma once
// `kk3tune merge`: the shards of one sweep plan (`sweep --shard I/N`) back into the result file
// one unsharded sweep would have written (docs/sweep-result-format.md, "Shards and merge").
//
// The stage works on the result documents themselves, not on a typed model of them: a merged
// file must carry every field of its shards unchanged, including fields this stage does not
// know, so it copies JSON values and changes only what the contract says differs.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kk3::merge {

/// One input of a merge: a sweep result file with the sharding fields (plan.digest, plan.items,
/// plan.shard), as read.
struct shard_input {
  std::filesystem::path file;      ///< as given, for messages and plan.merged_from
  nlohmann::ordered_json doc;      ///< the whole document
  long long index = 0;             ///< shard I of I/N; 0 for an unsharded file
  long long count = 0;             ///< shard N of I/N; 0 for an unsharded file
  std::vector<std::size_t> items;  ///< indices into plan.items it covers, ascending
};

/// Reads one input. Throws error(io) when it cannot be read, error(input) naming the file and
/// the JSON path when it is not valid JSON, not a sweep, of another schema_version, or written
/// before sharding existed (no plan.digest, plan.items or plan.shard: re-run the sweep).
shard_input read_shard(const std::filesystem::path& file);

/// The merged document of `inputs` (in any order), with context.argv = `argv`. Throws
/// error(input) naming both files and the JSON path of each field where two inputs differ
/// (plan, build, GPU, objective, timed or not), an item covered twice, items covered by no
/// input (their keys and the missing shards), or a record or table outside its file's items.
nlohmann::ordered_json merge_shards(std::vector<shard_input> inputs,
                                    const std::vector<std::string>& argv);

}  // namespace kk3::merge
