#pragma once
// expert_scale's host side (its kernel is expert_scale.cuh beside this file): a small test
// family whose model dimension, experts (E), no other family has. Everything kk3tune does with it
// (plan, sweep, shards, merge, results, compare, report, headers) goes through the family
// interface.
#include "families/family.hpp"

namespace kk3::families {

class expert_scale final : public family {
 public:
  static constexpr long long k_row = 1024;  ///< D, as in the kernel
  static constexpr long long k_default_experts = 8;

  std::string name() const override { return "expert_scale"; }
  bool is_test() const override { return true; }
  std::vector<dimension> dimensions() const override { return {{"experts", "E", 1, true, true}}; }
  shape model_shape(long long tokens, const space::mode& m, const dims& given) const override;
  device::launch_config geometry(const space::variant& v, const space::mode& m,
                                 const shape& s) const override;
  double bytes_moved(const shape& s, const space::mode& m) const override;
  std::vector<shape> edge_shapes(const shape& model, const space::mode& m) const override;
  problem make_problem(const shape& s, const space::mode& m,
                       unsigned long long seed) const override;
  void reference(const shape& s, const space::mode& m, problem& p) const override;
  std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m,
                                            const problem& p) const override;
};

}  // namespace kk3::families
