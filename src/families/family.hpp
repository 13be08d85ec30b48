#pragma once
// The interface through which a kernel family plugs into kk3tune. A family's folder under
// src/families holds its implementation; it registers itself with one line in registry.cpp.
#include <memory>
#include <string>
#include <vector>

#include "device/launch.hpp"
#include "families/problem.hpp"
#include "space/variant.hpp"

namespace kk3::families {

/// A problem size of a family. Every family is swept over token counts; `heads` and `blocks`
/// are the model shape where the family has one (0 where it has none).
struct shape {
  long long tokens = 1;       ///< T: tokens in the decode batch
  long long heads = 0;        ///< H for mla_decode_epilogue
  long long blocks = 0;       ///< NB for attn_res
  long long block_size = 64;  ///< KV-cache block size (mla_decode_epilogue)
  bool strided = false;       ///< inputs laid out with padded token / head / row strides
};

/// The device buffers of one call at one shape, with the inputs filled, and the kernel's
/// argument array. A family subclasses it; the measurement engine only launches.
class workspace {
 public:
  virtual ~workspace() = default;
  /// The parameter array for cuLaunchKernelEx: pointers into this object, valid while it lives.
  virtual void** args() = 0;
};

/// One kernel family's host side.
class family {
 public:
  virtual ~family() = default;
  /// The name in configs/ and on the command line.
  virtual std::string name() const = 0;
  /// True for the foundation's example kernel: compiled and timed like a family, but not
  /// listed by `list` and not swept.
  virtual bool is_example() const { return false; }
  /// Launch geometry of a variant in a mode at a shape (dynamic shared memory included).
  virtual device::launch_config geometry(const space::variant& v, const space::mode& m, const shape& s) const = 0;
  /// Bytes a call reads and writes, each input read once and each output written once.
  virtual double bytes_moved(const shape& s, const space::mode& m) const = 0;
  /// The shape of a call with T tokens, the model's other dimensions at their defaults, and
  /// `heads` / `blocks` where the caller gives them (> 0).
  virtual shape model_shape(long long tokens, long long heads, long long blocks) const = 0;
  /// The model shapes a sweep covers in mode `m`, at T = 1: `heads` are the plan's head counts
  /// for a family with heads (empty: the model's). The sweep asks the family, never guesses.
  virtual std::vector<shape> sweep_shapes(const space::mode& m, const std::vector<long long>& heads) const {
    (void)m;
    (void)heads;
    return {model_shape(1, 0, 0)};
  }
  /// The dimension that tells the family's model shapes apart in results and headers: "heads",
  /// "blocks", or "" for a family with one model shape. A plan may list "heads" only for a
  /// family whose key is "heads".
  virtual std::string shape_key() const { return ""; }
  /// Shapes the verifier always covers besides the requested ones (T = 1, thresholds, odd
  /// sizes, strided inputs), built around a model shape.
  virtual std::vector<shape> edge_shapes(const shape& model) const = 0;

  /// The host tensors of one call: inputs random from `seed`, outputs zero.
  virtual problem make_problem(const shape& s, const space::mode& m, unsigned long long seed) const = 0;
  /// The CPU reference: computes the output and in-place tensors of `p` from its inputs.
  virtual void reference(const shape& s, const space::mode& m, problem& p) const = 0;
  /// Device buffers holding `p`'s tensors, and the kernel's arguments over them.
  virtual std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m, const problem& p) const = 0;

  /// A workspace with fresh random inputs (for timing).
  std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m, unsigned long long seed) const {
    return make_workspace(s, m, make_problem(s, m, seed));
  }
};

}  // namespace kk3::families
