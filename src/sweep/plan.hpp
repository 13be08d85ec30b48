#pragma once
// The sweep as a plan of work items (SPEC 2, "Execution"). An item is one family x mode x model
// shape with every token count of the plan: the counts of a shape are screened together (each
// count starts from the previous one's order) and its dispatch table is selected over them, so
// an item is the smallest piece of a sweep that can run on its own. Shards (--shard I/N), several
// GPUs and `merge` all work in items; a result file records which items it covers.
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "families/registry.hpp"
#include "results/objective.hpp"
#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// One family of the plan, loaded: its space, the modes and variants swept.
struct family_work {
  families::family_space space;
  std::vector<const space::mode*> modes;
  std::vector<const space::variant*> variants;  ///< shipped only; the reference always included
  const space::variant* reference = nullptr;
  const family_plan* plan = nullptr;  ///< its entry in the plan
  results::objective
      objective;  ///< what its times stand for: the plan's, else the family's default
};

/// The family's shipped variants a mode: what a plan naming no `variants` sweeps.
[[nodiscard]] std::size_t shipped_variants(const family_work& w);
/// Where the plan sweeps part of a family's space, which part and why, one line:
/// "mla_decode_epilogue: 13 of 288 variants a mode: the plan's `variants` list (the reference with
/// it); why: ..." (the plan's `variants_note`) or "...: --variant ..."; empty where it sweeps every
/// shipped variant.
[[nodiscard]] std::string subset_text(const sweep_request& r, const family_work& w);

/// What the default plan (`config_dir`/default.json) has a sweep of `f` minimise: its objective
/// for the family over the family's default objective; the family's default when the plan has
/// no entry for it or there is no default plan. `time` times so by default, so that its numbers
/// and its winner are the table's. Throws error(config) for a bad plan.
[[nodiscard]] results::objective planned_objective(const families::family& f,
                                                   const std::filesystem::path& config_dir);

/// One unit of work: a family x mode x model shape, with the plan's token counts.
struct work_item {
  std::size_t index = 0;  ///< in the plan's items
  const family_work* family = nullptr;
  const space::mode* mode = nullptr;
  families::shape shape;       ///< the model shape at T = 1
  families::dims key_shape;    ///< the family's key dimensions of `shape` (family::key_of)
  std::string key;             ///< shape_key(family, mode, key_shape)
  bool first_of_mode = false;  ///< the mode's compile records and compile counts belong here
  double compile_cost = 0;     ///< estimated work without a GPU: the mode's variants (first item)
  double measure_cost = 0;     ///< estimated work on a GPU (relative units)
};

/// A plan: its families and items, in plan order (families as the plan lists them, then modes as
/// the family config lists them, then shapes).
struct sweep_plan {
  std::deque<family_work> families;  ///< a deque: items point into it
  std::vector<work_item> items;
  std::string digest;  ///< what the plan sweeps (plan_digest)
};

/// Loads the plan's families and makes its items; checks the modes, variants, shapes and token
/// counts it names against each family (error(config) naming the plan's file and JSON path).
sweep_plan make_plan(const sweep_request& request);

/// The identity of what a sweep covers: the plan file's bytes and every flag that changes what is
/// swept (--family, --tokens, --min-gain, the archs of a compile-only run, timed or not). Shards
/// of one plan share it; `merge` refuses files whose digests differ.
std::string plan_digest(const sweep_request& request, bool timed,
                        const std::vector<std::string>& compile_archs);

/// "I/N" (1 <= I <= N): throws error(usage) naming --shard otherwise.
shard_spec parse_shard(const std::string& text);

/// The items of shard `s`, ascending. The partition depends on the plan alone: items are dealt,
/// costliest first, to the shard with the least work so far (ties to the lower shard). With
/// timed = false the cost is the compiles (a mode's, on its first item), else the measurement.
std::vector<std::size_t> shard_items(const sweep_plan& plan, const shard_spec& s, bool timed);

/// The item keys of a plan, in order (the result file's plan.items).
std::vector<std::string> item_keys(const sweep_plan& plan);

}  // namespace kk3::sweep
