#pragma once
// Reading any result file kk3tune writes (kind "time" from `kk3tune time --json`, kind "sweep"
// from `kk3tune sweep`) into one model: the context, one record per family x mode x shape x
// variant, and the dispatch ranges (sweeps only). Used by `compare` and `report`.
// (The codec's reader of whole documents: results/document.cpp.)
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/model.hpp"
#include "results/sample_stats.hpp"
#include "results/sweep_file.hpp"

namespace kk3::results {

/// The context block of a result file (fields absent in the file stay empty / 0).
struct result_context {
  std::string gpu_name, gpu_arch, compute_capability, driver_version;
  long long sm_count = 0, l2_bytes = 0;
  double sm_clock_mhz = 0, memory_clock_mhz = 0;
  std::string nvrtc_version, tool_version, git_revision, utc_time;
  std::vector<std::string> argv;
  double copy_ceiling_tb_s = 0,
         empty_kernel_us = 0;  ///< the machine's figures (0: not in the file)
};

/// One family x mode x shape x variant.
struct result_record {
  std::string at;  ///< JSON pointer of the record, for messages
  std::string family, mode, variant;
  long long tokens = 0;
  dims shape;  ///< the family's key dimensions
  std::vector<std::pair<std::string, long long>>
      knobs;  ///< empty when the file has none (kind time)
  bool reference = false;
  /// time files: ok; sweeps: the record's status (an unlaunchable record has no statistics
  /// unless verification found it so)
  results::status status = results::status::ok;
  std::string reason;
  std::optional<results::status> verification_status;  ///< sweeps: the finalist's verification
  std::string first_mismatch;
  std::optional<sample_stats> stats;  ///< microseconds
  std::vector<double> samples_us;
  double bytes_moved = 0, achieved_tb_s = 0, fraction_of_ceiling = 0;
  std::string timing_mode;  ///< time files: "graph", "isolated", "cold" or "chain"; sweeps: empty
  /// What the time stands for: a time entry's timing.objective (before schema 3: its mode and
  /// PDL), a sweep family's objective (before schema 3: graph). Only times under one objective
  /// are comparable.
  results::objective objective;

  /// "family/mode/T64-H16/variant": what compare matches records by.
  std::string key() const;
};

/// What a sweep's plan says about its token counts and its selection rule (absent fields stay
/// unset: a file from before they were written).
struct result_plan {
  std::vector<long long> tokens;  ///< the token counts swept
  std::optional<double> min_gain, noise_sigmas, noise_floor;
};

/// A whole result file.
struct result_document {
  std::filesystem::path file;
  std::string kind;  ///< "time" or "sweep"
  int schema_version = 0;
  result_context context;
  std::vector<result_record> records;
  std::vector<sweep_dispatch> dispatch;  ///< sweeps with a GPU; empty otherwise
  bool timed = true;  ///< false for a sweep run without a GPU ("timed": false in its plan)
  std::optional<result_plan> plan;  ///< sweeps that have a plan block
};

/// Reads a result file. Throws error(io) if it cannot be read, error(input) naming the file and
/// the JSON path if it is not valid JSON, has a schema_version this kk3tune does not read
/// (json_parse.hpp), an unknown kind, or a missing or mistyped field. Also reads the first layout
/// of `time --json` (one measurement at the top level, its variant in the subject) and an integer
/// field holding a fraction (rounded). The format: results/schema/kk3tune-result.schema.json.
[[nodiscard]] result_document read_result_document(const std::filesystem::path& file);

}  // namespace kk3::results
