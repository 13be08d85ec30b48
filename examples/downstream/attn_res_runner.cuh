#pragma once
// attn_res's runner, included by each mode's translation unit (attn_res_mode.cu.in) after it has
// defined the mode's macros, and instantiated after it has included the kernel source: the inputs of one call at T
// tokens (SPEC 1.2's distributions), the selected variant and the reference launched through
// with_mode_variant() and launch(), and every buffer they write compared bitwise.
#include <kk3tune/dispatch/attn_res.h>

// The kernel source's own includes, at file scope before the mode's translation unit includes
// the source itself inside an unnamed namespace (#pragma once keeps them there).
#include "attn_res_params.h"
#include "common/fault_point.cuh"
#include "common/pdl.cuh"

#include <cmath>

#include "common.cuh"

namespace example {

namespace ar = kk3tune::dispatch::attn_res;

/// The mode's compile-time dimensions (its macros KK3_ATTN_RES_H, _NB, _HAS_DELTA, _HAS_OUT_NORM,
/// _BLOCK_WRITE).
struct attn_res_dims {
  long long hidden, nb;
  bool delta, out_norm, block_write;
};

/// Runs the variant select() gives for mode M at `tokens` tokens and the reference on the same
/// inputs; `kernel_of(v)` is the kernel source's instantiation for with_mode_variant()'s `v`.
template <ar::mode M, class KernelOf>
result run_attn_res(KernelOf kernel_of, const attn_res_dims& d, int blocks, long long tokens,
                    unsigned long long seed) {
  const long long T = tokens, H = d.hidden;
  const long long slabs = d.nb + (d.block_write ? 1 : 0);  // with a block write, block NB too
  const std::size_t row = static_cast<std::size_t>(H) * 2;
  buffers b;
  using role = buffers::role;
  kk3_attn_res_params p{};
  p.blocks =
      b.add("blocks", row * T * (slabs > 0 ? slabs : 1), d.block_write ? role::inout : role::input);
  p.prefix = b.add("prefix", row * T, d.delta ? role::inout : role::input);
  p.delta = d.delta ? b.add("delta", row * T, role::input) : 0;
  p.rms_w = b.add("rms_w", row, role::input);
  p.res_w = b.add("res_w", row, role::input);
  p.out_w = d.out_norm ? b.add("out_w", row, role::input) : 0;
  p.out = b.add("out", row * T, role::output);
  p.block_token_stride = slabs * H;
  p.block_stride = H;
  p.block_write_idx = d.block_write ? d.nb : -1;
  p.eps = 1e-5f;
  p.out_eps = 1e-5f;
  p.tokens = static_cast<int>(T);
  // Normal values; block n scaled by 1 + 0.4 n so that the softmax is not flat.
  fill_bf16(p.blocks, T * slabs * H, seed + 1, 0.0f, 1.0f, H, slabs > 0 ? slabs : 1);
  fill_bf16(p.prefix, T * H, seed + 2, 0.0f, 2.0f);
  if (d.delta) fill_bf16(p.delta, T * H, seed + 3, 0.0f, 0.5f);
  fill_bf16(p.rms_w, H, seed + 4, 1.0f, 0.1f);
  fill_bf16(p.res_w, H, seed + 5, 0.0f, 3.0f / std::sqrt(static_cast<float>(H)));
  if (d.out_norm) fill_bf16(p.out_w, H, seed + 6, 1.0f, 0.1f);
  b.start();

  const ar::knobs k = ar::select(M, blocks, T);
  return against_reference(
      b, ar::reference_knobs, k, ar::variant_id(k), [&](const ar::knobs& run, cudaStream_t s) {
        cudaError_t e = cudaErrorInvalidValue;
        if (!ar::with_mode_variant<M>(
                run, [&](auto v) { e = ar::launch(kernel_of(v), run, M, blocks, T, s, p); })) {
          throw cuda_error(std::string("no instantiation of ") + ar::variant_id(run) +
                           " in this mode");
        }
        return e;
      });
}

}  // namespace example
