#include "sweep/compile_eta.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace kk3::sweep {
namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::size_t> pilot_order(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::uint64_t state = seed;
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[splitmix(state) % i]);
  return order;
}

std::size_t pilot_size(std::size_t n) {
  // A quarter at most: the units that follow it are journaled one by one as they finish.
  return std::max(n / 32, std::min<std::size_t>(16, n / 4));
}

compile_eta::compile_eta(std::vector<std::string> group_of)
    : m_group_of(std::move(group_of)),
      m_cost(m_group_of.size(), 1.0),
      m_done(m_group_of.size(), false),
      m_cost_total(static_cast<double>(m_group_of.size())) {}

void compile_eta::sampled(std::size_t i, double cost_s) {
  m_samples.emplace_back(m_group_of[i], cost_s);
  done(i);
}

void compile_eta::learn() {
  if (m_samples.empty()) return;
  std::map<std::string, std::pair<double, std::size_t>> sums;
  double all = 0;
  for (const auto& [group, cost] : m_samples) {
    sums[group].first += cost;
    ++sums[group].second;
    all += cost;
  }
  // A floor keeps a group of cache hits (cost ~0) from counting as free against the others.
  const double mean_all = std::max(all / static_cast<double>(m_samples.size()), 1e-6);
  const double floor = mean_all * 1e-3;
  m_cost_done = m_cost_total = 0;
  for (std::size_t i = 0; i < m_group_of.size(); ++i) {
    const auto it = sums.find(m_group_of[i]);
    const double mean =
        it == sums.end() ? mean_all : it->second.first / static_cast<double>(it->second.second);
    m_cost[i] = std::max(mean, floor);
    m_cost_total += m_cost[i];
    if (m_done[i]) m_cost_done += m_cost[i];
  }
}

void compile_eta::done(std::size_t i) {
  if (i >= m_done.size() || m_done[i]) return;
  m_done[i] = true;
  ++m_finished;
  m_cost_done += m_cost[i];
}

std::optional<double> compile_eta::eta_s(double elapsed_s) const {
  if (m_finished == 0 || m_cost_done <= 0) return std::nullopt;
  return std::max(0.0, (m_cost_total - m_cost_done) / m_cost_done * elapsed_s);
}

}  // namespace kk3::sweep
