#pragma once
// A kernel family's configuration file (configs/<family>.json): source, knobs, constraints,
// modes and the reference variant. The only place besides src/report that knows JSON.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "space/expression.hpp"

namespace kk3::space {

/// One tuning knob and the values it takes, in the order the config lists them.
struct knob {
  std::string name;               ///< upper-case, as used in the kernel source (e.g. SPLIT)
  std::vector<long long> values;  ///< candidate values
};

/// A compile-time mode of a family (e.g. bf16, fp8_rope): the -D defines it sets.
struct mode {
  std::string name;
  std::vector<std::pair<std::string, std::string>> defines;  ///< name, value
  std::string file;  ///< the config it was read from, for messages

  /// The integer value of a define, or `fallback` when the mode does not set it; throws
  /// error(config) when the mode sets it to something else than an integer.
  long long define_or(const std::string& define, long long fallback) const {
    for (const auto& [key, value] : defines) {
      if (key != define) continue;
      const std::optional<long long> v = parse_integer(value);
      if (!v)
        throw error(error_kind::config, file + ": /modes/" + name + "/" + define +
                                            ": expected an integer, not \"" + value + "\"");
      return *v;
    }
    return fallback;
  }
};

/// Everything a family's config file says.
struct family_config {
  std::filesystem::path file;        ///< where it was read from, for messages
  std::string family;                ///< family name, e.g. mla_decode_epilogue
  std::string description;           ///< one line for `list`
  std::string source;                ///< kernel source, relative to kernels/
  std::string entry;                 ///< name expression with {KNOB} placeholders
  std::vector<std::string> options;  ///< extra NVRTC options
  std::vector<mode> modes;           ///< at least one
  std::vector<knob> knobs;           ///< the search space
  std::vector<knob> test_knobs;      ///< test-only knobs (first value = what shipped variants use)
  std::vector<expression> constraints;         ///< a variant must satisfy all
  std::map<std::string, long long> reference;  ///< the reference variant's knob values
};

/// Reads and checks a family config; throws error(config) naming the file and JSON path.
[[nodiscard]] family_config load_family_config(const std::filesystem::path& file);

/// The mode with the given name; throws error(usage) naming the family and its modes when there
/// is none.
[[nodiscard]] const mode& find_mode(const family_config& config, const std::string& name);

}  // namespace kk3::space
