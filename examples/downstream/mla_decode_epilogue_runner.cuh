#pragma once
// mla_decode_epilogue's runner, instantiated by each mode's translation unit
// (mla_decode_epilogue_mode.cu.in) after it has defined the mode's macros and included the kernel
// source: the inputs of one decode step at T tokens (SPEC 1.1), the selected variant and the
// reference launched through with_mode_variant() and launch(), mqa_q and the KV cache (updated
// in place, both runs from the same bytes) compared bitwise.
#include <kk3tune/dispatch/mla_decode_epilogue.h>

// The kernel source's own includes, at file scope before the mode's translation unit includes
// the source itself inside an unnamed namespace (#pragma once keeps them there).
#include "common/fault_point.cuh"
#include "common/pdl.cuh"
#include "mla_decode_epilogue_params.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "common.cuh"

namespace example {

namespace mla = kk3tune::dispatch::mla_decode_epilogue;

/// The mode's compile-time switches (its macros KK3_MLA_DECODE_EPILOGUE_MODE_FP8, _MODE_ROPE).
struct mla_dims {
  bool fp8, rope;
};

/// Runs the variant select() gives for mode M at `tokens` tokens of `heads` heads and the
/// reference on the same inputs; `kernel_of(v)` is the kernel source's instantiation for
/// with_mode_variant()'s `v`.
template <mla::mode M, class KernelOf>
result run_mla(KernelOf kernel_of, const mla_dims& d, int heads, long long tokens,
               unsigned long long seed) {
  constexpr long long k_latent = 512, k_rope = 64, k_entry = 576, k_block_size = 64,
                      k_positions = 4096;
  const long long T = tokens, H = heads;
  const long long num_blocks = (2 * T + k_block_size) / k_block_size + 1;
  const std::size_t out_bytes = d.fp8 ? 1 : 2;
  buffers b;
  using role = buffers::role;
  kk3_mla_params p{};
  p.ql_nope = b.add("ql_nope", 2 * T * H * k_latent, role::input);
  p.q_pe = b.add("q_pe", 2 * T * H * k_rope, role::input);
  p.kv_c = b.add("kv_c", 2 * T * k_latent, role::input);
  p.k_pe = b.add("k_pe", 2 * T * k_rope, role::input);
  p.slot_mapping = b.add("slot_mapping", 8 * T, role::input);
  p.mqa_q = b.add("mqa_q", out_bytes * T * H * k_entry, role::output);
  p.kv_cache = b.add("kv_cache", out_bytes * num_blocks * k_block_size * k_entry, role::inout);
  p.ql_head_stride = k_latent;
  p.ql_token_stride = H * k_latent;
  p.qpe_head_stride = k_rope;
  p.qpe_token_stride = H * k_rope;
  p.kpe_row_stride = k_rope;
  p.tokens = static_cast<int>(T);
  p.heads = static_cast<int>(H);
  // bf16 values with a few large ones (fp8 saturation); a random cache background that the
  // tokens without a slot must leave alone.
  fill_bf16(p.ql_nope, T * H * k_latent, seed + 1, 0.0f, 2.0f, 1, 1, true);
  fill_bf16(p.q_pe, T * H * k_rope, seed + 2, 0.0f, 2.0f, 1, 1, true);
  fill_bf16(p.kv_c, T * k_latent, seed + 3, 0.0f, 2.0f, 1, 1, true);
  fill_bf16(p.k_pe, T * k_rope, seed + 4, 0.0f, 2.0f, 1, 1, true);
  fill_bits(p.kv_cache, out_bytes * num_blocks * k_block_size * k_entry, seed + 5);
  // Distinct random slots, about one token in eight without one (-1).
  std::mt19937_64 rng(seed);
  std::vector<long long> slots(static_cast<std::size_t>(num_blocks * k_block_size));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), rng);
  for (long long t = 0; t < T; ++t) {
    if (rng() % 8 == 0) slots[t] = -1;
  }
  upload(p.slot_mapping, slots.data(), 8 * T);
  if (d.rope) {
    std::vector<long long> positions(static_cast<std::size_t>(T));
    for (long long& x : positions) x = static_cast<long long>(rng() % k_positions);
    std::vector<float> cos_sin(static_cast<std::size_t>(k_positions * 64));
    for (long long q = 0; q < k_positions; ++q) {
      for (int i = 0; i < 32; ++i) {
        const double angle = static_cast<double>(q) * std::pow(10000.0, -2.0 * i / 64.0);
        cos_sin[q * 64 + i] = static_cast<float>(std::cos(angle));
        cos_sin[q * 64 + 32 + i] = static_cast<float>(std::sin(angle));
      }
    }
    p.positions = b.add("positions", 8 * T, role::input);
    p.cos_sin_cache = b.add("cos_sin_cache", 4 * cos_sin.size(), role::input);
    upload(p.positions, positions.data(), 8 * T);
    upload(p.cos_sin_cache, cos_sin.data(), 4 * cos_sin.size());
  }
  if (d.fp8) {
    const float scales[2] = {16.0f + static_cast<float>(rng() % 48),
                             16.0f + static_cast<float>(rng() % 48) + 0.5f};
    p.q_scale_inv = b.add("q_scale_inv", 4, role::input);
    p.cache_scale_inv = b.add("cache_scale_inv", 4, role::input);
    upload(p.q_scale_inv, &scales[0], 4);
    upload(p.cache_scale_inv, &scales[1], 4);
  }
  b.start();

  const mla::knobs k = mla::select(M, heads, T);
  return against_reference(
      b, mla::reference_knobs, k, mla::variant_id(k), [&](const mla::knobs& run, cudaStream_t s) {
        cudaError_t e = cudaErrorInvalidValue;
        if (!mla::with_mode_variant<M>(
                run, [&](auto v) { e = mla::launch(kernel_of(v), run, M, heads, T, s, p); })) {
          throw cuda_error(std::string("no instantiation of ") + mla::variant_id(run) +
                           " in this mode");
        }
        return e;
      });
}

}  // namespace example
