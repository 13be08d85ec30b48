#pragma once
// The interface through which a kernel family plugs into kk3tune. A family's folder under
// src/families holds its implementation; it registers itself with one line in list.def.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/launch_settings.h"
#include "device/launch.hpp"
#include "families/problem.hpp"
#include "families/shape.hpp"
#include "results/objective.hpp"
#include "space/variant.hpp"

namespace kk3::families {

/// The device buffers of one call at one shape, with the inputs filled, and the kernel's
/// argument array. A family subclasses it; the measurement engine only launches.
class workspace {
 public:
  virtual ~workspace() = default;
  /// The parameter array for cuLaunchKernelEx: pointers into this object, valid while it lives.
  virtual void** args() = 0;
  /// The device buffers (address, bytes) the call writes: its outputs, and with `in_place` also
  /// the tensors it updates in place. What chain mode's consumer reads after its wait.
  virtual std::vector<std::pair<CUdeviceptr, std::size_t>> written(bool in_place) const {
    (void)in_place;
    return {};
  }
};

/// The oldest GPU architecture a family's kernel builds for, and what needs it.
struct arch_requirement {
  int sm = 90;  ///< 10 * major + minor of the compute capability: 90 for sm_90 / sm_90a
  std::string why =
      "griddepcontrol (programmatic dependent launch, kernels/common/pdl.cuh)";  ///< the feature,
                                                                                 ///< for messages
};

/// What one NVRTC compile of a family's variant takes, as measured, and where it was measured.
struct compile_rate {
  double seconds = 0;  ///< per compile, on one thread of a machine compiling on all of its threads
  std::string source;  ///< the measurement: machine and file, for the dry run to name
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
  /// True for a family that exists to test kk3tune itself: listed and swept like
  /// any family, but in no default plan, and `emit` writes its header only from a sweep of it.
  virtual bool is_test() const { return false; }
  /// The oldest architecture the kernel builds for: `compile` and `sweep` refuse an older one
  /// before any compile. By default sm_90, for the griddepcontrol every kernel waits on its
  /// producer with (common/pdl.cuh); a family whose kernel needs more (clusters, TMA) says so.
  virtual arch_requirement min_arch() const { return {}; }
  /// What a sweep of the family minimises unless the plan says otherwise (SPEC 2, "Objective"):
  /// graph mode by default; a PDL family models the kernels it runs between in the model (its
  /// chain's producer and consumer), so its time is the latency it adds where it runs.
  virtual results::objective default_objective() const { return {}; }
  /// What a compile of one of the family's variants takes, for `sweep --dry-run`'s estimate
  /// while the compile cache holds none of the family's compiles (the cache's own times win):
  /// measured on the default plan, so it is the family's, not one rate for all. None: never
  /// measured, and the dry run falls back to another family's history or a plan-wide mean.
  virtual std::optional<compile_rate> default_compile_rate() const { return std::nullopt; }
  /// Launch geometry of a variant in a mode at a shape (dynamic shared memory included). A
  /// family with a launch header (below) computes it there. `pdl` stays false: each caller
  /// decides per launch (timing from the objective, as served; verify behind its producer).
  virtual device::launch_config geometry(const space::variant& v, const space::mode& m,
                                         const shape& s) const = 0;
  /// The installed header under kernels/ whose constexpr function gives the family's launch
  /// settings (e.g. "attn_res_launch.h"): the one arithmetic geometry() and the generated
  /// dispatch header's settings() share. Empty: the family has none, and its dispatch header
  /// carries no launch settings.
  virtual std::string launch_header() const { return {}; }
  /// With a launch header: the C++ expression the generated dispatch header's settings()
  /// returns for mode `m`, a call of that header's function in terms of settings()'s
  /// parameters: `k` (the header's knobs), the key dimensions by name and `num_tokens`.
  virtual std::string launch_call(const space::mode& m) const {
    (void)m;
    return {};
  }
  /// Bytes a call reads and writes, each input read once and each output written once.
  virtual double bytes_moved(const shape& s, const space::mode& m) const = 0;
  /// The family's model dimensions besides T, in its order; every shape it makes sets each of
  /// them. The key ones tell its model shapes apart (the dispatch tables are keyed on them
  /// beside the token count): mla_decode_epilogue's heads, attn_res's blocks; none for a family
  /// with one model shape.
  virtual std::vector<dimension> dimensions() const { return {}; }
  /// The dimension called `name`, if the family has one.
  std::optional<dimension> find_dimension(const std::string& name) const;
  /// The key dimensions among dimensions().
  std::vector<dimension> key_dimensions() const;
  /// The key dimensions of `s`: what results, tables and headers tell it apart by.
  dims key_of(const shape& s) const;
  /// The values of `s` for the dimensions a plan or a flag may choose, one each: what makes
  /// sweep_shapes give `s`'s model shape again.
  planned_dims planned_of(const shape& s) const;
  /// The shape of a call with T tokens in mode `m`: the model's dimensions, with the key
  /// dimensions in `given` (by name, as a plan or a flag names them) instead of the model's.
  /// Throws error(usage) naming the dimension for a value the family cannot take.
  virtual shape model_shape(long long tokens, const space::mode& m, const dims& given) const = 0;
  /// The model shapes a sweep covers in mode `m`, at T = 1: by default every combination of
  /// the plan's values (`planned`, for dimensions a plan may choose; an absent one: the
  /// model's). The sweep asks the family, never guesses.
  virtual std::vector<shape> sweep_shapes(const space::mode& m, const planned_dims& planned) const;
  /// Shapes the verifier always covers besides the requested ones (T = 1, thresholds, odd
  /// sizes, strided inputs), built around a model shape of mode `m` (some edges exist in some
  /// modes only: attn_res's block write into a block past NB).
  virtual std::vector<shape> edge_shapes(const shape& model, const space::mode& m) const = 0;

  /// The host tensors of one call: inputs random from `seed`, outputs zero.
  virtual problem make_problem(const shape& s, const space::mode& m,
                               unsigned long long seed) const = 0;
  /// The CPU reference: computes the output and in-place tensors of `p` from its inputs.
  virtual void reference(const shape& s, const space::mode& m, problem& p) const = 0;
  /// Device buffers holding `p`'s tensors, and the kernel's arguments over them.
  virtual std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m,
                                                    const problem& p) const = 0;

  /// A workspace with fresh random inputs (for timing).
  std::unique_ptr<workspace> random_workspace(const shape& s, const space::mode& m,
                                              unsigned long long seed) const {
    return make_workspace(s, m, make_problem(s, m, seed));
  }
};

/// Declares, in a family's class, the five overrides every kernel family defines (family documents
/// each): model_shape, edge_shapes, make_problem, reference and make_workspace. A family's own
/// notes on them go beside their definitions.
#define KK3_FAMILY_PROBLEM_OVERRIDES                                                           \
  shape model_shape(long long tokens, const space::mode& m, const dims& given) const override; \
  std::vector<shape> edge_shapes(const shape& model, const space::mode& m) const override;     \
  problem make_problem(const shape& s, const space::mode& m, unsigned long long seed)          \
      const override;                                                                          \
  void reference(const shape& s, const space::mode& m, problem& p) const override;             \
  std::unique_ptr<workspace> make_workspace(const shape& s, const space::mode& m,              \
                                            const problem& p) const override;

/// A decode kernel's chain objective: after a persistent GEMM holding every SM and triggering when
/// done (producer_model's defaults, standing for `producer`), before `consumer`.
[[nodiscard]] results::objective chain_after_persistent_gemm(std::string producer,
                                                             results::consumer_model consumer);

/// `s` as kk3tune's driver-API launch takes it, `pdl` left false (see family::geometry()).
device::launch_config launch_config_of(const kk3tune::kernels::launch_settings& s);

/// Checks, before any compile, that each family of `families` builds for each of `archs`
/// (family::min_arch()). Throws error(usage) for the first arch too old for some of them, naming
/// where it came from (`what`: "--arch"), the arch, the families, the arch they need and why.
void require_archs(const std::vector<const family*>& families,
                   const std::vector<std::string>& archs, const std::string& what);

}  // namespace kk3::families
