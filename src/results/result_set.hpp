#pragma once
// A whole result file in the one value model (results/model.hpp, results/context.hpp): what
// results/reader.hpp reads any kk3tune result file into (kind "time" from `kk3tune time --json`,
// kind "sweep" from `kk3tune sweep`), for compare, report, emit and sweep --baseline.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/context.hpp"
#include "results/model.hpp"

namespace kk3::results {

/// What a sweep's plan says about its token counts and its selection rule (absent fields stay
/// unset: a file from before they were written).
struct plan_summary {
  std::vector<long long> tokens;  ///< the token counts swept
  std::optional<double> min_gain, noise_sigmas, noise_floor;
};

/// A result file, as read.
struct result_set {
  std::filesystem::path file;  ///< as given, for messages
  std::string digest;          ///< hash_hex of the file's bytes (32 hex digits)
  std::string kind;            ///< "time" or "sweep"
  int schema_version = 0;      ///< as the file gave it (the reader upgrades what it reads)
  run_context context;         ///< fields absent in the file stay empty / 0
  std::vector<family_summary> families;  ///< sweeps: what the file says about each family
  std::vector<record> records;           ///< empty when read for the tables only
  std::vector<dispatch_entry> dispatch;  ///< sweeps with a GPU; empty otherwise
  bool timed = true;  ///< false for a sweep run without a GPU ("timed": false in its plan)
  std::optional<plan_summary> plan;  ///< sweeps that have a plan block
  std::string plan_digest;    ///< plan.digest (the shards of one plan share it); empty in files
                              ///< from before sharding
  long long shard_index = 0;  ///< plan.shard.index; 0 for an unsharded (or merged) file
  /// Read for the tables only: why the file has none (another kind, an untimed sweep); then
  /// nothing else is read. Empty otherwise.
  std::string not_a_sweep;
};

}  // namespace kk3::results
