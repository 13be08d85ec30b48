#pragma once
// The interface through which a kernel family plugs into kk3tune. A family's folder under
// src/families holds its implementation; it registers itself with one line in registry.cpp.
#include <memory>
#include <string>

#include "device/launch.hpp"
#include "space/variant.hpp"

namespace kk3::families {

/// A problem size of a family. Every family is swept over token counts; `heads` and `blocks`
/// are the model shape where the family has one (0 where it has none).
struct shape {
  long long tokens = 1;  ///< T: tokens in the decode batch
  long long heads = 0;   ///< H for mla_decode_epilogue
  long long blocks = 0;  ///< NB for attn_res
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
  /// Launch geometry of a variant at a shape.
  virtual device::launch_config geometry(const space::variant& v, const shape& s) const = 0;
  /// Bytes a call reads and writes, each input read once and each output written once.
  virtual double bytes_moved(const shape& s) const = 0;
  /// Allocates the buffers of one call at `s` on the current context and fills its inputs
  /// with random values drawn from `seed`.
  virtual std::unique_ptr<workspace> make_workspace(const shape& s, unsigned long long seed) const = 0;
};

}  // namespace kk3::families
