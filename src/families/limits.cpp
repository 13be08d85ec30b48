#include "families/limits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace kk3::families {

long long max_tokens(const family& f, const space::mode& m, long long heads, long long blocks) {
  constexpr long long k_int_max = std::numeric_limits<int>::max();
  // bytes_moved is linear in T: a fixed part (weights, scales) and a part per token.
  const double one = f.bytes_moved(f.model_shape(1, heads, blocks), m);
  const double two = f.bytes_moved(f.model_shape(2, heads, blocks), m);
  const double per_token = two - one;
  const double fixed = one - per_token;
  if (one > k_max_call_bytes) return 0;
  if (per_token <= 0) return k_int_max;
  const double most = std::floor((k_max_call_bytes - fixed) / per_token);
  return most >= static_cast<double>(k_int_max) ? k_int_max : static_cast<long long>(most);
}

std::string describe_call(const family& f, const space::mode& m, long long heads, long long blocks) {
  const shape s = f.model_shape(1, heads, blocks);
  std::string d = f.name() + " in mode " + m.name;
  if (s.heads > 0) d += " at H=" + std::to_string(s.heads);
  if (s.blocks > 0) d += " at NB=" + std::to_string(s.blocks);
  return d;
}

std::string token_limit_problem(const family& f, const space::mode& m, long long tokens, long long heads, long long blocks) {
  const long long most = max_tokens(f, m, heads, blocks);
  if (tokens <= most) return {};
  const std::string why = "one call may move at most 16 GiB";
  if (most < 1) return describe_call(f, m, heads, blocks) + " takes no token at all (" + why + ")";
  return "T=" + std::to_string(tokens) + " is more than " + describe_call(f, m, heads, blocks) + " takes (at most " +
         std::to_string(most) + ": " + why + ")";
}

void check_tokens(const family& f, const space::mode& m, long long tokens, long long heads, long long blocks,
                  const std::string& flag) {
  if (tokens < 1) throw error(error_kind::usage, flag + ": T=" + std::to_string(tokens) + ": expected a positive integer");
  const std::string problem = token_limit_problem(f, m, tokens, heads, blocks);
  if (problem.empty()) return;
  // Not even one token: the head count given is what is too large.
  const bool heads_at_fault = heads > 0 && max_tokens(f, m, heads, blocks) < 1;
  throw error(error_kind::usage, (heads_at_fault ? std::string("--heads") : flag) + ": " + problem);
}

}  // namespace kk3::families
