#pragma once
// The text of one generated dispatch header (kk3tune/dispatch/<family>.h): a C++17 header with
// one constexpr table per architecture, mode and model shape, `select()` over them,
// `with_variant()` to turn the selected runtime knobs into a kernel instantiation, and the
// launch settings of every variant (`settings()`, and `launch()` under nvcc). It depends only on
// the model below (no time, host or path), so equal models give equal bytes.
#include <string>
#include <utility>
#include <vector>

#include "codegen/header_text.hpp"  // to_identifier(), is_cpp_keyword()

namespace kk3::codegen {

/// A tuple of knob values, in the config's knob order.
using ordered_knobs = std::vector<long long>;

/// One token range of a table: token counts up to `max_tokens` launch `knobs`. Only what the
/// table is: a run's figures (the runner-up and its margin, whether the incumbent was kept, the
/// timings) stay in the result JSON and `kk3tune report`, so that a re-sweep that keeps the
/// tables keeps the header's bytes outside its provenance block.
struct header_range {
  long long min_tokens = 0;  ///< first measured token count (for the comment)
  long long max_tokens = 0;  ///< last measured token count: select()'s threshold
  ordered_knobs knobs;
  std::string variant;  ///< the winner's id
};

/// The ranges of one mode at one model shape.
struct header_table {
  std::size_t mode = 0;              ///< index into dispatch_model::modes
  std::vector<long long> shape;      ///< the model shape: one value per dispatch_model::shape_keys
  std::vector<header_range> ranges;  ///< ascending; never empty
};

/// One sweep an architecture's tables came from: a result file, or the shards of one plan.
struct header_source {
  std::string gpu_name, gpu_arch, tool_version, git_revision, nvrtc_version, utc_time;
  std::string digest_kind;  ///< "result" (of the file's bytes) or "plan" (plan.digest of shards)
  std::string digest;       ///< 32 hex digits
  std::string
      objective;  ///< what the sweep minimised (results::describe), e.g. "chain: producer ..."
};

/// The tables of one architecture, and where they came from.
struct header_arch {
  std::string name;    ///< the table architecture: "sm_90" or "sm_100"
  int sm = 0;          ///< 90, 100
  bool tuned = false;  ///< false: no sweep result; every select() gives the reference
  std::vector<header_source> sources;  ///< the sweeps its tables came from (when tuned)
  std::vector<header_table> tables;    ///< by mode (config order), then shape ascending
};

/// A compile-time mode of the family.
struct header_mode {
  std::string name;        ///< as in the config, e.g. "bf16_rope"
  std::string identifier;  ///< its C++ enumerator name
  /// The macros the kernel source reads for the mode, named as kk3tune defines them
  /// (space::macro_name(): KK3_MLA_DECODE_EPILOGUE_MODE_FP8), with their values, in config order
  std::vector<std::pair<std::string, std::string>> macros;
  /// settings()'s expression for the mode (family::launch_call); empty without a launch header
  std::string launch_call;
};

/// Everything one header says.
struct dispatch_model {
  std::string family;                    ///< the namespace kk3tune::dispatch::<family>
  std::string tool_version;              ///< the emitting kk3tune's version
  std::string source;                    ///< the kernel source, relative to kernels/
  std::string entry;                     ///< the entry template with {KNOB} placeholders
  std::vector<std::string> options;      ///< extra NVRTC options the variants were compiled with
  std::vector<std::string> knob_names;   ///< config order
  std::string macro_prefix;              ///< of every macro of the family (space::macro_prefix())
  std::vector<std::string> macro_knobs;  ///< knobs that are -D macros (not in the entry), prefixed
  std::vector<std::string>
      shape_keys;  ///< the family's key dimensions: select()'s shape parameters
  std::vector<header_mode> modes;
  ordered_knobs reference;  ///< the reference variant's knobs
  /// Every distinct knob tuple a table can return, the reference first, with its variant id.
  std::vector<std::pair<ordered_knobs, std::string>> variants;
  std::vector<header_arch> archs;  ///< sm_90 first (the default of select())
  /// The family's launch header, relative to kernels/ (family::launch_header()); empty: the
  /// header has no settings() and no launch().
  std::string launch_header;
};

/// The first and the last line of a header's provenance block, the one place that names the
/// runs its tables came from (GPU, git revision, time, sweep digest, objective) and the emitting
/// kk3tune: re-emitting tables equal to a baseline's changes no line outside it.
inline constexpr char k_provenance_begin[] =
    "// ---- provenance: the runs that set these tables ----";
inline constexpr char k_provenance_end[] = "// ---- end of provenance ----";

/// The header text.
std::string dispatch_header(const dispatch_model& model);

}  // namespace kk3::codegen
