#pragma once
// What `time` and `profile` share: choose one variant at one shape, compile it for the GPU,
// load it and allocate its workspace (a --variant selection is read by space/selection_filter).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "device/device_info.hpp"
#include "families/registry.hpp"
#include "jit/batch.hpp"
#include "jit/loaded_kernels.hpp"
#include "session/gpu_session.hpp"

namespace kk3::cli {

/// The flags that give model dimensions: --shape NAME=V[,V...] (repeatable) for any dimension
/// a family has, and --heads and --blocks, the same for heads and blocks.
struct shape_options {
  std::vector<std::string> shape;
  std::vector<long long> heads, blocks;
};

/// Adds --shape, --heads and --blocks to a subcommand (`lists`: each takes several values).
void add_shape_options(CLI::App* cmd, shape_options& o, bool lists);

/// The values given, by dimension name in the order of `f`'s dimensions. Throws error(usage)
/// naming the flag for a malformed --shape, a dimension `f` does not have, a value below its
/// least, or (unless `lists`) more than one value.
families::planned_dims given_shapes(const families::family& f, const shape_options& o, bool lists);

/// The flag that gave dimension `name` ("--heads", or "--shape NAME"), for messages.
std::string shape_flag(const shape_options& o, const std::string& name);

/// The flags that pick a variant and a shape.
struct variant_options {
  std::string family;                 ///< --family (required)
  std::string mode;                   ///< --mode; empty = the family's first mode
  std::string variant = "reference";  ///< --variant: ids, globs, NAME=VALUE filters, or "all"
  bool single = false;  ///< the command takes one variant (profile): a selection of more is refused
  long long tokens = 1;         ///< --tokens T
  shape_options shape;          ///< --shape, --heads, --blocks
  unsigned long long seed = 0;  ///< --seed; 0 = draw one (and print it)
  cache_options cache;          ///< --cache-dir, --no-cache
};

/// Adds the flags above to a subcommand; `variant_help` describes its --variant.
void add_variant_options(CLI::App* cmd, variant_options& o, const std::string& variant_help);

/// One compiled and loaded variant (the shared owner of compile-and-load: jit/loaded_kernels.hpp).
using loaded_kernel = jit::loaded_kernel;

/// The chosen variants of one mode, compiled and loaded, with workspaces of one shape on GPU 0
/// (every variant of a mode takes the same arguments, so they share the workspaces).
struct loaded_variant {
  families::family_space space;
  const space::mode* mode = nullptr;
  /// The GPU, its context and JIT engine, the timer: declared before the kernels and workspaces
  /// that live in its context, so that it goes after them.
  std::unique_ptr<session::gpu_session> gpu;
  std::vector<loaded_kernel> kernels;  ///< in the order asked (all: the config's order)
  families::shape shape;
  unsigned long long seed = 0;
  std::vector<std::unique_ptr<families::workspace>> workspaces;

  const device::device_info& info() const { return gpu->info(); }
  /// The first (for profile: the only) variant.
  const space::variant& variant() const { return *kernels.front().variant; }
  /// "copy_example/default/vec_bytes16-... T=64" for messages.
  std::string describe() const;
  /// The NVTX name of the shape range, e.g. "default-T64" (no '/').
  std::string shape_range_name() const;
};

/// Checks the flags, then compiles, loads and allocates (`workspaces` input sets). Throws
/// error(usage) for a bad family, mode, variant or shape, or a variant the GPU cannot launch at
/// the shape (under --variant all such variants are left out, a line on stderr each);
/// error(device) without a GPU; error(compile) when a variant does not compile (with its log).
loaded_variant load_variant(const global_options& global, const variant_options& o,
                            unsigned workspaces = 1);

/// Adds input sets to a loaded variant until it has `count` (seeds seed+1, seed+2, ...).
void add_workspaces(loaded_variant& v, unsigned count);

}  // namespace kk3::cli
