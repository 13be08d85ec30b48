#pragma once
// The ETA of a sweep's compiles without a GPU. Variants differ in cost by two orders of magnitude
// (an attn_res variant takes far longer than an mla_decode_epilogue one), and the plan compiles
// family by family, so a rate measured on the first compiles says little of the rest. So the
// sweep first compiles a pilot: a deterministic random sample of the plan's compiles
// (pilot_order), an unbiased sample of every family. From it each family's mean cost is learned;
// then the ETA is the estimated cost of what remains over the estimated cost of what is done,
// times the time taken so far (which folds in the threads and the cache hits). During the pilot
// the compiles done are themselves a random sample, so the count alone is unbiased.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kk3::sweep {

/// A permutation of 0..n-1, the same for the same n and seed on every machine (Fisher-Yates
/// over a 64-bit splitmix sequence).
[[nodiscard]] std::vector<std::size_t> pilot_order(std::size_t n, std::uint64_t seed);

/// How many of n compiles the pilot takes: a 32nd, at least 16 or a quarter, whichever is less.
[[nodiscard]] std::size_t pilot_size(std::size_t n);

/// The ETA over a fixed list of compiles, each of one group (its family).
class compile_eta {
 public:
  /// `group_of[i]`: the group of compile i.
  explicit compile_eta(std::vector<std::string> group_of);

  /// Compile i of the pilot finished, costing `cost_s` (its compile time; a cache hit's ~0).
  void sampled(std::size_t i, double cost_s);
  /// The pilot is over: each group's cost is now the mean of its samples (a group with none
  /// takes the mean of all samples).
  void learn();
  /// Compile i finished (after the pilot).
  void done(std::size_t i);

  /// Seconds left, after `elapsed_s` since the first compile; none before anything is done.
  [[nodiscard]] std::optional<double> eta_s(double elapsed_s) const;
  [[nodiscard]] std::size_t finished() const { return m_finished; }

 private:
  std::vector<std::string> m_group_of;
  std::vector<double> m_cost;  ///< estimated cost of each compile (1 until learn())
  std::vector<bool> m_done;
  std::vector<std::pair<std::string, double>> m_samples;
  double m_cost_done = 0, m_cost_total = 0;
  std::size_t m_finished = 0;
};

}  // namespace kk3::sweep
