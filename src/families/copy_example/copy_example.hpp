#pragma once
// The foundation's example kernel (kernels/copy_example.cuh): a device-to-device copy of
// T rows of k_row_bytes. Not a family: it exercises the machinery.
#include "families/family.hpp"

namespace kk3::families {

class copy_example final : public family {
 public:
  /// Bytes per token row: one bf16 hidden vector of 7168.
  static constexpr long long k_row_bytes = 7168 * 2;

  std::string name() const override { return "copy_example"; }
  bool is_example() const override { return true; }
  device::launch_config geometry(const space::variant& v, const space::mode& m,
                                 const shape& s) const override;
  double bytes_moved(const shape& s, const space::mode& m) const override;
  KK3_FAMILY_PROBLEM_OVERRIDES
  /// Bytes copied at a shape.
  static long long copy_bytes(const shape& s) { return s.tokens * k_row_bytes; }
};

}  // namespace kk3::families
