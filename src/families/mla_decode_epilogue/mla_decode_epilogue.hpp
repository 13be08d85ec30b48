#pragma once
// mla_decode_epilogue's host side (SPEC 1.1): buffers, launch geometry, bytes moved, edge
// shapes, and the CPU reference.
#include "families/family.hpp"

namespace kk3::families {

class mla_decode_epilogue final : public family {
 public:
  static constexpr long long k_latent = 512, k_rope = 64, k_entry = 576;
  static constexpr long long k_max_positions = 4096;  ///< rows of the cos/sin table
  static constexpr long long k_default_heads = 16;

  std::string name() const override { return "mla_decode_epilogue"; }
  results::objective default_objective() const override;
  std::optional<compile_rate> default_compile_rate() const override;
  device::launch_config geometry(const space::variant& v, const space::mode& m,
                                 const shape& s) const override;
  std::string launch_header() const override { return "mla_decode_epilogue_launch.h"; }
  std::string launch_call(const space::mode& m) const override;
  double bytes_moved(const shape& s, const space::mode& m) const override;
  /// heads (H, the key: a plan lists the head counts to sweep) and block_size (the KV-cache
  /// block size: 64 in the model, other sizes in the verifier's edge shapes).
  std::vector<dimension> dimensions() const override;
  KK3_FAMILY_PROBLEM_OVERRIDES
};

/// The strides (in elements) a problem uses for its inputs.
struct mla_layout {
  long long ql_head_stride, ql_token_stride, qpe_head_stride, qpe_token_stride, kpe_row_stride;
  long long num_blocks;  ///< KV-cache blocks
};
mla_layout mla_layout_for(const shape& s);

}  // namespace kk3::families
