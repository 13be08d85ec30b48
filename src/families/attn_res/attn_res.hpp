#pragma once
// attn_res's host side (SPEC 1.2): buffers, launch geometry, bytes moved, edge shapes, and the
// float64 CPU reference. The block count NB, H and the optional inputs are compile-time: they
// come from the mode (its defines NB, H, HAS_DELTA, HAS_OUT_NORM), not from the shape. The block
// write's index k is a run-time argument: NB unless the shape holds another (k_block_write_idx).
#include "families/family.hpp"

namespace kk3::families {

class attn_res final : public family {
 public:
  std::string name() const override { return "attn_res"; }
  results::objective default_objective() const override;
  std::optional<compile_rate> default_compile_rate() const override;
  device::launch_config geometry(const space::variant& v, const space::mode& m,
                                 const shape& s) const override;
  std::string launch_header() const override { return "attn_res_launch.h"; }
  std::string launch_call(const space::mode& m) const override;
  double bytes_moved(const shape& s, const space::mode& m) const override;
  /// blocks (NB, the key): set by the mode (its define NB), so a plan does not choose it.
  std::vector<dimension> dimensions() const override { return {{"blocks", "NB", 0, false, true}}; }
  /// model_shape: `given` may also hold k_block_write_idx (block-write modes only, at least NB;
  /// refused otherwise with error(usage)); the shape names it only where it is not NB.
  /// edge_shapes: T = 1, 2 (strided), 7 and 64 (strided); in block-write modes also T = 3
  /// (strided) with k = NB + 1, a spare block NB left between.
  KK3_FAMILY_PROBLEM_OVERRIDES

  static constexpr float k_eps = 1e-5f;      ///< eps of the logits' RMS
  static constexpr float k_out_eps = 1e-5f;  ///< eps of the output norm
  /// The shape entry that holds k, the block the block write stores p into (the kernel's
  /// block_write_idx): absent means k = NB, the block p completes, as the model calls it; the
  /// verifier's edge shapes also take k = NB + 1. Not a dimension a plan or a flag chooses:
  /// it changes which row is written, not the work, and every verify run covers both.
  static constexpr const char* k_block_write_idx = "block_write_idx";
};

}  // namespace kk3::families
