#pragma once
// A whole result file in the one value model (results/model.hpp, results/context.hpp): what
// results/reader.hpp reads any kk3tune result file into (kind "time" from `kk3tune time --json`,
// kind "sweep" from `kk3tune sweep`), for compare, report, emit, merge and sweep --baseline; and,
// for a sweep, what results/sweep_file.hpp writes (the sweep's file and merge's).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/context.hpp"
#include "results/model.hpp"

namespace kk3::results {

/// plan.shard of a file that holds part of a plan (`sweep --shard I/N`, or one `--gpus` worker).
struct shard_coverage {
  long long index = 0, count = 0;  ///< shard I of N
  std::vector<long long> items;    ///< indices into plan_block::items it covers, ascending
};

/// One entry of plan.merged_from: a file `kk3tune merge` merged.
struct merged_input {
  std::string file;                  ///< as given to merge
  std::optional<std::string> shard;  ///< "I/N"; none for an unsharded file
  std::string utc_time;              ///< its context.utc_time
};

/// An untimed sweep's plan.shipped: the committed sweep whose dispatch tables it marks its
/// variants by (arch_resources::ships), the one the committed dispatch headers come from.
struct shipped_tables {
  std::string file;          ///< as the sweep found it
  std::string digest;        ///< hash_hex of its bytes
  std::string gpu, arch;     ///< what it was timed on ("NVIDIA H200", "sm_90a")
  std::string git_revision;  ///< its context's
  /// The plan's archs it has tables for (the others have no timed sweep: the committed headers'
  /// select() gives the reference there).
  std::vector<std::string> timed_archs;
};

/// A sweep's plan block (absent fields stay unset or empty: a file from before they were
/// written). The family -> objective map it also holds is the families' (family_summary).
struct plan_block {
  std::string config;                                         ///< the plan file the sweep ran
  std::vector<long long> tokens;                              ///< the token counts swept
  std::vector<std::string> archs;                             ///< what was compiled for
  std::optional<double> min_gain, noise_sigmas, noise_floor;  ///< the selection rule
  bool timed = true;             ///< false for a sweep run without a GPU
  double copy_ceiling_tb_s = 0;  ///< what fraction_of_ceiling is taken of
  long long compiles = 0, compile_failures = 0;
  double wall_s = 0;
  std::string digest;  ///< the plan's (the shards of one plan share it); empty before sharding
  /// sweep --baseline: its file and the digest of its bytes
  std::optional<std::pair<std::string, std::string>> baseline;
  std::vector<std::string> items;         ///< every work item of the plan, in order
  std::optional<shard_coverage> shard;    ///< none: the file covers every item
  std::vector<merged_input> merged_from;  ///< a merged file's inputs; empty otherwise
  /// An untimed sweep: the committed tables it marked its variants by; none when it found none
  /// (an install), and in timed sweeps and files from before it.
  std::optional<shipped_tables> shipped;
};

/// A result file, as read.
struct result_set {
  std::filesystem::path file;  ///< as given, for messages
  std::string digest;          ///< hash_hex of the file's bytes (32 hex digits)
  std::string kind;            ///< "time" or "sweep"
  int schema_version = 0;      ///< as the file gave it (the reader upgrades what it reads)
  run_context context;         ///< fields absent in the file stay empty / 0; no GPU: gpu.name ""
  std::vector<family_summary> families;    ///< sweeps: what the file says about each family
  std::vector<record> records;             ///< empty when read for the tables only
  std::vector<dispatch_entry> dispatch;    ///< sweeps with a GPU; empty otherwise
  std::optional<plan_block> plan;          ///< sweeps that have a plan block
  std::optional<unsigned long long> seed;  ///< time files: the subject's seed, where it has one
  /// Read for the tables only: why the file has none (another kind, an untimed sweep); then
  /// nothing else is read. Empty otherwise.
  std::string not_a_sweep;

  /// False for a sweep run without a GPU ("timed": false in its plan).
  [[nodiscard]] bool timed() const { return !plan || plan->timed; }
};

}  // namespace kk3::results
