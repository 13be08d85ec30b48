#include "families/limits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "families/registry.hpp"

namespace kk3::families {

long long max_tokens(const family& f, const space::mode& m, const dims& given) {
  constexpr long long k_int_max = std::numeric_limits<int>::max();
  // bytes_moved is linear in T: a fixed part (weights, scales) and a part per token.
  const double one = f.bytes_moved(f.model_shape(1, m, given), m);
  const double two = f.bytes_moved(f.model_shape(2, m, given), m);
  const double per_token = two - one;
  const double fixed = one - per_token;
  if (one > k_max_call_bytes) return 0;
  if (per_token <= 0) return k_int_max;
  const double most = std::floor((k_max_call_bytes - fixed) / per_token);
  return most >= static_cast<double>(k_int_max) ? k_int_max : static_cast<long long>(most);
}

std::string describe_call(const family& f, const space::mode& m, const dims& given) {
  const std::string key = shape_text(f.key_of(f.model_shape(1, m, given)));
  return f.name() + " in mode " + m.name + (key.empty() ? "" : " at " + key);
}

std::string token_limit_problem(const family& f, const space::mode& m, long long tokens,
                                const dims& given) {
  const long long most = max_tokens(f, m, given);
  if (tokens <= most) return {};
  const std::string why = "one call may move at most 16 GiB";
  if (most < 1) return describe_call(f, m, given) + " takes no token at all (" + why + ")";
  return "T=" + std::to_string(tokens) + " is more than " + describe_call(f, m, given) +
         " takes (at most " + std::to_string(most) + ": " + why + ")";
}

void check_tokens(const family& f, const space::mode& m, long long tokens, const dims& given,
                  const std::string& flag, const std::string& dims_flag) {
  if (tokens < 1)
    throw error(error_kind::usage,
                flag + ": T=" + std::to_string(tokens) + ": expected a positive integer");
  const std::string problem = token_limit_problem(f, m, tokens, given);
  if (problem.empty()) return;
  // Not even one token: the dimensions given (a head count, say) are what is too large.
  const bool dims_at_fault = !given.empty() && max_tokens(f, m, given) < 1;
  throw error(error_kind::usage, (dims_at_fault ? dims_flag : flag) + ": " + problem);
}

}  // namespace kk3::families
