#pragma once
// An empty kernel (kernels/empty_example.cuh): what a launch costs when the kernel does
// nothing. Not a family: benchmarks time it beside the families, the same way.
#include "families/family.hpp"

namespace kk3::families {

class empty_example final : public family {
 public:
  std::string name() const override { return "empty_example"; }
  bool is_example() const override { return true; }
  device::launch_config geometry(const space::variant& v, const space::mode& m,
                                 const shape& s) const override;
  double bytes_moved(const shape&, const space::mode&) const override { return 0; }
  shape model_shape(long long tokens, const space::mode&, const dims&) const override {
    return shape{tokens};
  }
  std::vector<shape> edge_shapes(const shape&, const space::mode&) const override {
    return {shape{1}};
  }
  problem make_problem(const shape&, const space::mode&, unsigned long long) const override {
    return {};
  }
  void reference(const shape&, const space::mode&, problem&) const override {}
  std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m,
                                            const problem& p) const override;
};

}  // namespace kk3::families
