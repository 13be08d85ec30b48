#pragma once
// The argument block of kernels/mla_decode_epilogue.cuh, shared by the kernel and the host
// (src/families/mla_decode_epilogue): plain C types only, no device code.

/// Pointers are device addresses; strides count elements.
struct kk3_mla_params {
  unsigned long long ql_nope;        ///< bf16 [T, H, 512], strides below, last dim contiguous
  unsigned long long q_pe;           ///< bf16 [T, H, 64]
  unsigned long long kv_c;           ///< bf16 [T, 512] contiguous
  unsigned long long k_pe;           ///< bf16 [T, 64], row stride below
  unsigned long long slot_mapping;   ///< int64 [T]; a negative slot leaves the cache alone
  unsigned long long positions;      ///< int64 [T] (rope modes)
  unsigned long long cos_sin_cache;  ///< fp32 [max_pos, 64]: 32 cos then 32 sin (rope modes)
  unsigned long long q_scale_inv;    ///< fp32 scalar (fp8 modes)
  unsigned long long cache_scale_inv;///< fp32 scalar (fp8 modes)
  unsigned long long mqa_q;          ///< [T, H, 576] contiguous: bf16, or e4m3 in fp8 modes
  unsigned long long kv_cache;       ///< [num_blocks, block_size, 576]: bf16, or e4m3
  long long ql_token_stride, ql_head_stride;
  long long qpe_token_stride, qpe_head_stride;
  long long kpe_row_stride;
  int tokens;                        ///< T
  int heads;                         ///< H
};
