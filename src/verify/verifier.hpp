#pragma once
// The verifier, written once for all families (SPEC 1.3): fresh random inputs from a logged
// seed, outputs poisoned, every output element compared with the CPU reference (bit for bit, or
// within the bound where the reference gives one) and bit for bit with the reference variant,
// everything outside the outputs checked untouched, edge shapes always included, and the PDL
// hazard check.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "device/device_info.hpp"
#include "families/registry.hpp"
#include "jit/batch.hpp"
#include "results/model.hpp"
#include "timing/helper_kernels.hpp"

namespace kk3::verify {

/// The first element that differed.
struct mismatch {
  std::string against;        ///< "cpu reference", "reference variant" or "input changed"
  std::string tensor;         ///< the tensor's name
  long long index = 0;        ///< element index in the tensor's allocation
  std::string expected, got;  ///< the element's bits, hex
  std::string shape;          ///< the shape it happened at
};

/// How to verify.
struct verify_options {
  unsigned long long seed = 1;     ///< shape k uses seed + k
  std::vector<long long> tokens;   ///< T values besides the edge shapes
  families::planned_dims shapes;   ///< values of dimensions the family lets a flag choose
                                   ///< (mla's heads); every combination; absent = the model's
  bool edge_shapes = true;         ///< include the family's edge shapes
  unsigned hazard_runs = 1;        ///< PDL hazard checks per variant and shape
  double hazard_delay_us = 50;     ///< how long the delayed producer holds the inputs back
  std::filesystem::path save_dir;  ///< --save-workspace: .npy files of failing variants
  bool save_all = false;           ///< save every variant's tensors, not only failures
};

/// Accuracy against the CPU reference for tensors held to SPEC 1.3's bound
/// (families::tensor::bounded, verify/tolerance.hpp): the smallest share of elements equal to
/// bf16(x), the largest distance from bf16(x) in bf16 ulps, and the largest
/// |out - x| / (ulp_bf16(x) + 2^-12 m), whose limit is 1. Bit-exact tensors leave them at 1, 0
/// and 0. merge() keeps the worst of each: over shapes, variants or modes.
struct accuracy {
  double exact_fraction = 1.0;
  int max_ulps = 0;
  double worst_ratio = 0;

  void merge(const accuracy& a);
};

/// One variant in one mode, verified at every shape; its accuracy is the worst over them.
struct verify_record : accuracy {
  std::string family, mode, variant;
  bool test_only = false;
  results::status outcome =
      results::status::ok;  ///< one of ok, compile_failed, launch_failed,
                            ///< mismatch, pdl_hazard, unsupported, unlaunchable
  std::string reason;       ///< a sentence for non-ok outcomes
  std::optional<mismatch> first_mismatch;
  std::vector<std::string> shapes;  ///< every shape checked, e.g. "T65-H16"
  long long checks = 0;             ///< launches compared (plain and hazard runs)
};

/// "T65-H16-strided" and the like.
std::string shape_name(const families::shape& s);

/// Verifies variants of one family on GPU 0 (its context must be current).
class verifier {
 public:
  verifier(const device::device_info& info, const jit::jit_engine& engine,
           std::filesystem::path kernel_dir, const timing::helper_kernels& helpers);

  /// Every given variant of `space` in mode `m`. The reference variant is run first at each
  /// shape; it must be among `variants`. Before a variant's first launch at a shape, whether
  /// the GPU can launch it there: if not, it is recorded as unlaunchable and not run again;
  /// throws error(verify) when the reference is (nothing can be verified without it).
  [[nodiscard]] std::vector<verify_record> verify_mode(const families::family_space& space,
                                                       const space::mode& m,
                                                       const std::vector<space::variant>& variants,
                                                       const verify_options& o) const;

 private:
  const device::device_info& m_info;
  const jit::jit_engine& m_engine;
  std::filesystem::path m_kernel_dir;
  const timing::helper_kernels& m_helpers;
};

}  // namespace kk3::verify
