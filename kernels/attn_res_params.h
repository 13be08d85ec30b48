#pragma once
// The argument block of kernels/attn_res.cuh, shared by the kernel and the host
// (src/families/attn_res): plain C types only, no device code.

/// Pointers are device addresses; strides count elements. Every row the kernel reads or writes
/// (a block, the prefix, delta, a weight, out) starts 16-byte aligned: the block strides are
/// multiples of 8 elements.
struct kk3_attn_res_params {
  unsigned long long blocks;   ///< bf16 [T, >= NB (+1 with a block write), H]: completed block sums
  unsigned long long prefix;   ///< bf16 [T, H]: the running partial sum; updated in place with delta
  unsigned long long delta;    ///< bf16 [T, H] (HAS_DELTA)
  unsigned long long rms_w;    ///< bf16 [H]
  unsigned long long res_w;    ///< bf16 [H]: the layer's pseudo-query
  unsigned long long out_w;    ///< bf16 [H] (HAS_OUT_NORM)
  unsigned long long out;      ///< bf16 [T, H]
  long long block_token_stride;  ///< elements between tokens in `blocks`
  long long block_stride;        ///< elements between block n and n+1 of one token
  long long block_write_idx;     ///< BLOCK_WRITE: p is also stored into blocks[t, k] (k >= 0)
  float eps;                     ///< RMS epsilon of the logits
  float out_eps;                 ///< RMS epsilon of the output norm
  int tokens;                    ///< T
};
