#pragma once
// How many tokens one call of a family may take. The kernels index with 64-bit offsets but take
// the token count as an int, and every call's buffers are allocated whole on the device and held
// on the host for the CPU reference; so T is bounded by the bytes one call moves.
#include <string>

#include "families/family.hpp"

namespace kk3::families {

/// The most bytes one call may move (its inputs read once and its outputs written once, as
/// family::bytes_moved counts them): 16 GiB. The workspace on the device is about this size,
/// and verification holds a few copies of it on the host.
inline constexpr double k_max_call_bytes = 16.0 * 1024 * 1024 * 1024;

/// The largest token count a call of `f` in mode `m` takes at the model shape with the key
/// dimensions `given` (an absent one: the model's): the largest T whose call moves at most
/// k_max_call_bytes, and at most 2^31 - 1 (the kernels' int token count). 0 when even one token
/// moves more.
[[nodiscard]] long long max_tokens(const family& f, const space::mode& m, const dims& given);

/// "mla_decode_epilogue in mode bf16 at H=16": the family, mode and model shape, for messages.
std::string describe_call(const family& f, const space::mode& m, const dims& given);

/// Throws error(usage) "`flag`: T=... is more than ... takes ..." when `tokens` is beyond
/// max_tokens (or below 1); "`dims_flag`: ..." when the dimensions given (a head count, say)
/// take no token at all.
void check_tokens(const family& f, const space::mode& m, long long tokens, const dims& given,
                  const std::string& flag, const std::string& dims_flag);

/// Why `tokens` is too many: "T=500000 is more than mla_decode_epilogue takes in mode bf16 at
/// H=16 (at most 438536: one call may move at most 16 GiB)"; empty when it is not.
[[nodiscard]] std::string token_limit_problem(const family& f, const space::mode& m,
                                              long long tokens, const dims& given);

}  // namespace kk3::families
