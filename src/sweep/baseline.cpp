#include "sweep/baseline.hpp"

#include "core/error.hpp"
#include "results/reader.hpp"
#include "sweep/journal.hpp"

namespace kk3::sweep {

std::optional<std::string> baseline_tables::at(const std::string& key, long long tokens) const {
  const auto t = tables.find(key);
  if (t == tables.end()) return std::nullopt;
  for (const auto& [first, last, variant] : t->second) {
    if (first <= tokens && tokens <= last) return variant;
  }
  return std::nullopt;
}

baseline_tables load_baseline(const std::filesystem::path& file) {
  results::result_set r;
  try {
    r = results::read_result_set(file, results::reading::tables);
  } catch (const error& e) {
    throw error(e.kind(), std::string("--baseline: ") + e.what());
  }
  if (!r.not_a_sweep.empty())
    throw error(error_kind::input, "--baseline " + file.string() + ": " + r.not_a_sweep +
                                       " (expected a timed sweep result)");
  baseline_tables b;
  b.file = file;
  b.digest = r.digest;
  for (const results::dispatch_entry& d : r.dispatch) {
    auto& ranges = b.tables[shape_key(d.family, d.mode, d.shape)];
    if (!ranges.empty())
      throw error(error_kind::input, "--baseline " + file.string() + ": " + d.at +
                                         ": a second table for " + d.family + "/" + d.mode);
    for (const select::range& range : d.ranges)
      ranges.emplace_back(range.min_tokens, range.max_tokens, range.winner);
  }
  return b;
}

}  // namespace kk3::sweep
