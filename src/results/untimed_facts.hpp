#pragma once
// What an untimed sweep's compile records say (results/model.hpp: arch_resources, token_grid),
// for its text summary (sweep/untimed_summary.hpp) and its report page
// (report/html_resources.cpp) alike: per arch, over a group of records (all of them, a family, or
// a family x mode), the compiles, the variants at the register limit or spilling, the occupancy
// and the waves per SM, and what the committed dispatch tables ship; and the shipped variants
// that spill.
#include <map>
#include <string>
#include <vector>

#include "results/model.hpp"

namespace kk3::results {

/// Registers per thread no compile goes past: a variant at it is likely short of them.
constexpr int k_register_limit = 255;

/// The least and the most of some values.
struct value_span {
  double least = 0, most = 0;
  bool any = false;  ///< false: no value was added

  void add(double v);
};

/// One arch's part of a group of compile records.
struct arch_tally {
  std::size_t variants = 0;  ///< records of the group (one per variant and mode)
  std::size_t compiled = 0;  ///< ... that compiled for the arch
  std::size_t failed = 0;    ///< ... that failed to compile for it
  std::size_t at_limit = 0;  ///< ... at k_register_limit
  std::size_t spilling = 0;  ///< ... with spill stores or loads
  std::string target;        ///< the arch's named GPU; empty: none
  value_span occupancy;      ///< on the target, 0 to 1
  value_span waves;          ///< per SM on the target, of every variant at every plan count
  std::size_t shipped = 0;   ///< records the committed tables choose somewhere on this arch
  std::size_t ranges = 0;    ///< the table ranges they are chosen at
  value_span shipped_waves;  ///< per SM, of the shipped records at the plan counts they ship at
};

/// Per arch of `archs` (in that order), the tally of `records`.
[[nodiscard]] std::vector<std::pair<std::string, arch_tally>> tally_by_arch(
    const std::vector<const record*>& records, const std::vector<std::string>& archs);

/// A variant that spills on an arch where the committed tables choose it: over the modes of its
/// family where it does both.
struct shipped_spill {
  std::string family, variant, arch, target;
  value_span store_bytes, load_bytes;  ///< of its spills in those modes
  std::vector<std::string> ranges;     ///< "post_nb1 T 1024-2048": each range it ships at there
};

/// The shipped variants of `records` that spill, in the order they first occur.
[[nodiscard]] std::vector<shipped_spill> shipped_spills(const std::vector<record>& records);

/// "T 1024-2048" ("T 1024" for a range of one count); `ranges_text` joins several after one
/// "T ": "T 1-2, 48, 64-128" (empty for none).
[[nodiscard]] std::string range_text(const token_range& r);
[[nodiscard]] std::string ranges_text(const std::vector<token_range>& ranges);

/// "4 to 12" ("4" where the span is one value), each end as `text` writes it.
[[nodiscard]] std::string span_text(const value_span& s, std::string (*text)(double));

/// Waves per SM to 3 significant digits ("0.0606", "1.94", "434").
[[nodiscard]] std::string waves_text(double waves);
/// A whole number of bytes ("12").
[[nodiscard]] std::string bytes_text(double bytes);

}  // namespace kk3::results
