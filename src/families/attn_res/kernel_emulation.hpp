#pragma once
// kernels/attn_res.cuh's arithmetic on the CPU, bit for bit: the same fp32 operations in the same
// order (the unit sums, the butterfly trees over units and slices, the online softmax over the
// sources, the output scale; the scalar functions from kernels/attn_res_math.h). Every variant
// of the kernel gives these bits (SPEC 1.3: the order is fixed by the data layout, not by a
// knob), so they check the kernel independently of the float64 reference, and they let
// bench/attn_res_precision.cpp measure the kernel's distance from float64 over many tokens
// without a GPU. Compiled with -ffp-contract=off: nothing may be fused that the kernel keeps
// apart.
#include <cstdint>

#include "families/problem.hpp"
#include "space/config.hpp"

namespace kk3::families {

/// One attn_res call's tensors as the kernel sees them (bf16 as raw bits; strides in elements).
struct attn_res_call {
  long long tokens = 0, hidden = 0, nb = 0;
  bool delta = false, out_norm = false, block_write = false;
  long long block_token_stride = 0, block_stride = 0;
  long long block_write_idx = 0;  ///< the block p is stored into (BLOCK_WRITE)
  float eps = 1e-5f, out_eps = 1e-5f;
  /// Not the kernel: the mix rounded to bf16 after every source, an arithmetic SPEC 1.3's bound
  /// must reject (the contrast of the bound's tests and bench/attn_res_precision.cpp).
  bool bf16_accumulator = false;
  std::uint16_t* blocks =
      nullptr;  ///< [T, >= NB (+ the written block), H]; written with a block write
  std::uint16_t* prefix = nullptr;          ///< [T, H]; updated in place with delta
  const std::uint16_t* delta_in = nullptr;  ///< [T, H] (delta)
  const std::uint16_t* rms_w = nullptr;     ///< [H]
  const std::uint16_t* res_w = nullptr;     ///< [H]
  const std::uint16_t* out_w = nullptr;     ///< [H] (out_norm)
  std::uint16_t* out = nullptr;             ///< [T, H]
};

/// The call over the tensors of `p`, an attn_res problem of mode `m` at `tokens` tokens in the
/// layout make_problem gives a shape that is not strided (block stride H, the block write into
/// block NB). Points into `p`: the emulation writes its outputs there.
attn_res_call attn_res_call_of(const space::mode& m, long long tokens, problem& p);

/// Runs the kernel's arithmetic over every token of `c` (in parallel), writing out, the prefix
/// update and the block write as the kernel does. H must be a multiple of 256.
void emulate_attn_res_kernel(const attn_res_call& c);

}  // namespace kk3::families
