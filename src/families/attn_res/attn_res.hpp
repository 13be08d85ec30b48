#pragma once
// attn_res's host side (SPEC 1.2): buffers, launch geometry, bytes moved, edge shapes, and the
// float64 CPU reference. The block count NB, H and the optional inputs are compile-time: they
// come from the mode (its defines NB, H, HAS_DELTA, HAS_OUT_NORM), not from the shape.
#include "families/family.hpp"

namespace kk3::families {

class attn_res final : public family {
 public:
  std::string name() const override { return "attn_res"; }
  timing::objective default_objective() const override;
  device::launch_config geometry(const space::variant& v, const space::mode& m, const shape& s) const override;
  std::string launch_header() const override { return "attn_res_launch.h"; }
  std::string launch_call(const space::mode& m) const override;
  double bytes_moved(const shape& s, const space::mode& m) const override;
  /// blocks (NB, the key): set by the mode (its define NB), so a plan does not choose it.
  std::vector<dimension> dimensions() const override { return {{"blocks", "NB", 0, false, true}}; }
  shape model_shape(long long tokens, const space::mode& m, const dims& given) const override;
  std::vector<shape> edge_shapes(const shape& model) const override;
  problem make_problem(const shape& s, const space::mode& m, unsigned long long seed) const override;
  void reference(const shape& s, const space::mode& m, problem& p) const override;
  std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m, const problem& p) const override;

  static constexpr float k_eps = 1e-5f;      ///< eps of the logits' RMS
  static constexpr float k_out_eps = 1e-5f;  ///< eps of the output norm
};

}  // namespace kk3::families
