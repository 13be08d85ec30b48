// The scheduler: runs a plan's work items (sweep/plan.hpp), all of them or one shard's. Without a
// GPU it compiles each item's mode; on a GPU it compiles ahead on its own thread, mode by mode,
// while the items of earlier modes are measured (sweep/item.hpp).
#include "sweep/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/seed.hpp"
#include "core/version.hpp"
#include "device/device_info.hpp"
#include "device/handles.hpp"
#include "families/registry.hpp"
#include "jit/loaded_kernels.hpp"
#include "jit/toolkit.hpp"
#include "results/schema.hpp"
#include "session/gpu_session.hpp"
#include "sweep/claims.hpp"
#include "sweep/compile_eta.hpp"
#include "sweep/compile_resources.hpp"
#include "sweep/item.hpp"
#include "sweep/journal.hpp"
#include "sweep/plan.hpp"
#include "timing/capture.hpp"
#include "timing/figures.hpp"
#include "timing/timer.hpp"
#include "verify/verifier.hpp"

namespace kk3::sweep {
namespace {

using clock_type = std::chrono::steady_clock;

family_summary summarize_family(const family_work& w) {
  family_summary s;
  s.family = w.space.config.family;
  s.entry = w.space.config.entry;
  s.source = w.space.config.source;
  for (const families::dimension& d : w.space.impl->key_dimensions())
    s.shape_keys.push_back(d.name);
  for (const auto& k : w.space.config.knobs) s.knobs.push_back(k.name);
  s.reference = w.reference->id;
  s.reference_knobs = w.reference->knobs;
  for (const space::mode* m : w.modes) s.modes.emplace_back(m->name, m->defines);
  s.objective = w.objective;
  return s;
}

/// The plan's part of the result: its block (families, items, digest, the selection rule, what
/// was compiled for) and, for a shard, which items the run covers. Returns those items.
std::vector<std::size_t> describe_plan(const sweep_plan& plan, const sweep_request& r, bool timed,
                                       const std::vector<std::string>& archs,
                                       results::result_set& out) {
  out.kind = "sweep";
  out.schema_version = results::k_schema_version;
  results::plan_block& p = out.plan.emplace();
  p.config = r.config.file.string();
  p.tokens = r.config.tokens;
  p.archs = archs;
  p.min_gain = r.config.selection.min_gain;
  p.noise_sigmas = r.config.selection.noise_sigmas;
  p.noise_floor = r.config.selection.noise_floor;
  p.timed = timed;
  p.digest = plan_digest(r, timed, timed ? std::vector<std::string>{} : archs);
  if (r.baseline) p.baseline = std::make_pair(r.baseline->file.string(), r.baseline->digest);
  p.items = item_keys(plan);
  std::vector<std::size_t> items = shard_items(plan, r.shard, timed);
  if (!r.shard.whole())
    p.shard = results::shard_coverage{r.shard.index, r.shard.count, {items.begin(), items.end()}};
  for (const family_work& w : plan.families) out.families.push_back(summarize_family(w));
  return items;
}

/// A variant's compile requests for one mode, with the test-only fault compiled in where
/// --inject-fault names the variant.
std::vector<jit::compile_request> item_requests(const sweep_request& r, const work_item& item,
                                                const std::string& arch) {
  const family_work& w = *item.family;
  return jit::mode_requests(
      w.space.config, *item.mode, w.variants, arch, r.kernel_dir,
      [&](const space::variant& v, jit::compile_request& q) {
        if (const auto it = r.inject.find(v.id); it != r.inject.end()) {
          q.options.push_back("-DKK3_INJECT_FAULT=" + std::to_string(it->second));
          q.label += " (fault injected)";
        }
      });
}

/// A variant's launch grid at each of `tokens`, at the item's model shape.
std::vector<results::token_grid> grids_of(const work_item& item, const space::variant& v,
                                          const std::vector<long long>& tokens) {
  std::vector<results::token_grid> out;
  families::shape s = item.shape;
  for (long long t : tokens) {
    s.tokens = t;
    out.push_back({t, item.family->space.impl->geometry(v, *item.mode, s).grid.volume()});
  }
  return out;
}

/// The compile records of a mode (tokens 0): one per variant, compile_failed with the first log
/// line of each failing arch (named when `untimed`), else "unverified" (kept only when `untimed`:
/// a sweep on a GPU records the failures alone). When `untimed`, each record carries the resources
/// of each arch that compiled (sweep/compile_resources.hpp) and its grid at the plan's token
/// counts. Counts the compiles into `out`.
std::vector<record> compile_records(const work_item& item,
                                    const std::vector<std::vector<jit::compile_result>>& per_arch,
                                    bool untimed, results::result_set& out) {
  std::vector<record> records;
  const family_work& w = *item.family;
  for (std::size_t i = 0; i < w.variants.size(); ++i) {
    record r = make_record(item, item.shape, *w.variants[i]);
    r.tokens = 0;
    r.status = results::status::unverified;
    if (untimed) r.grids = grids_of(item, *w.variants[i], out.plan->tokens);
    for (const auto& results : per_arch) {
      const jit::compile_result& c = results[i];
      ++out.plan->compiles;
      if (c.ok && untimed) {  // its resources, with the launch at the record's shape
        r.resources.push_back(
            compile_resources(c, w.space.impl->geometry(*w.variants[i], *item.mode, item.shape)));
      }
      if (c.ok) continue;
      ++out.plan->compile_failures;
      r.status = results::status::compile_failed;
      r.reason += (r.reason.empty() ? "" : "; ") + (untimed ? c.arch + ": " : "") +
                  c.log.substr(0, c.log.find('\n'));
    }
    if (untimed || r.status == results::status::compile_failed) records.push_back(std::move(r));
  }
  return records;
}

/// Without a GPU: the compiles of one item's mode for every arch, in arch order, and what became
/// of them (filled by the pilot first, then by the unit's own compile).
struct compile_unit {
  const work_item* item = nullptr;
  std::string name;  ///< "family/mode": the journal's unit
  std::vector<jit::compile_request> requests;
  std::size_t first = 0;  ///< its first compile's index among all the plan's compiles
  std::vector<std::optional<jit::compile_result>> results;
};

/// A result kept for its record: the cubin is not needed once the resources are read.
jit::compile_result kept(jit::compile_result c) {
  c.cubin.clear();
  c.cubin.shrink_to_fit();
  return c;
}

/// Compiles `requests` (ids[k] is request k's index among the plan's compiles), calling
/// `on_done(id, result)` as each lands; the results in request order.
std::vector<jit::compile_result> compile_batch(
    const jit::jit_engine& engine, const std::vector<jit::compile_request>& requests,
    const std::vector<std::size_t>& ids,
    const std::function<void(std::size_t, const jit::compile_result&)>& on_done) {
  std::map<std::string, std::size_t> id_of;  // labels are unique: family/mode/variant @ arch
  for (std::size_t k = 0; k < requests.size(); ++k) id_of[requests[k].label] = ids[k];
  return engine.compile_all(requests, [&](const jit::compile_result& c) {
    const auto it = id_of.find(c.label);
    on_done(it == id_of.end() ? 0 : it->second, c);
  });
}

/// Without a GPU: the unit's records from its compiles (sweep/compile_resources.hpp), appended to
/// `out` and to the journal.
void finish_unit(const sweep_request& r, compile_unit& u, std::size_t archs,
                 results::result_set& out) {
  std::vector<std::vector<jit::compile_result>> per_arch(archs);
  const std::size_t n = u.item->family->variants.size();
  for (std::size_t a = 0; a < archs; ++a) {
    for (std::size_t i = 0; i < n; ++i) per_arch[a].push_back(std::move(*u.results[a * n + i]));
  }
  const long long compiles = out.plan->compiles, failures = out.plan->compile_failures;
  std::vector<record> records = compile_records(*u.item, per_arch, true, out);
  if (r.log) {
    r.log->add_unit(u.name, records, static_cast<std::size_t>(out.plan->compiles - compiles),
                    static_cast<std::size_t>(out.plan->compile_failures - failures));
  }
  out.records.insert(out.records.end(), records.begin(), records.end());
}

/// The shard's items grouped by mode (items of a mode are adjacent in plan order): each group is
/// compiled once, ahead of its measurement.
std::vector<std::vector<const work_item*>> mode_groups(const sweep_plan& plan,
                                                       const std::vector<std::size_t>& items) {
  std::vector<std::vector<const work_item*>> groups;
  for (std::size_t i : items) {
    const work_item& item = plan.items[i];
    if (groups.empty() || groups.back().front()->mode != item.mode) groups.emplace_back();
    groups.back().push_back(&item);
  }
  return groups;
}

/// Compiles the groups one after another on its own thread; each group's results arrive through
/// its future. Stops early (compiles no further groups) when the sweep ends before them.
class compile_ahead {
 public:
  compile_ahead(const sweep_request& r, const jit::jit_engine& engine, const std::string& arch,
                const std::vector<std::vector<const work_item*>>& groups)
      : m_promises(groups.size()) {
    m_thread = std::thread([&r, &engine, arch, groups, this] {
      for (std::size_t g = 0; g < groups.size() && !m_abandon; ++g) {
        try {
          m_promises[g].set_value(engine.compile_all(item_requests(r, *groups[g].front(), arch)));
        } catch (...) {
          m_promises[g].set_exception(std::current_exception());
        }
      }
    });
  }
  ~compile_ahead() {
    m_abandon = true;
    m_thread.join();
  }
  std::vector<jit::compile_result> get(std::size_t group) {
    return m_promises[group].get_future().get();
  }

 private:
  std::vector<std::promise<std::vector<jit::compile_result>>> m_promises;
  std::atomic<bool> m_abandon{false};
  std::thread m_thread;
};

/// Loads a mode's compiled kernels for `first`, the first of its items this run measures (the
/// mode's first item of the plan records the variants that failed).
std::vector<jit::loaded_kernel> load_mode(const work_item& first,
                                          std::vector<jit::compile_result> compiled,
                                          results::result_set& out) {
  if (first.first_of_mode) {
    for (record& r : compile_records(first, {compiled}, false, out))
      out.records.push_back(std::move(r));
  }
  std::vector<jit::loaded_kernel> kernels =
      jit::load_compiled(first.family->variants, std::move(compiled));
  if (std::none_of(kernels.begin(), kernels.end(),
                   [](const jit::loaded_kernel& k) { return k.ok() && k.variant->is_reference; })) {
    throw error(error_kind::compile, first.family->space.config.family + "/" + first.mode->name +
                                         ": the reference variant does not compile");
  }
  return kernels;
}

/// The items of a fixed shard (`items`, in plan order), their modes compiled ahead on a thread
/// while earlier modes are measured.
void run_shard(const item_tools& g, const sweep_plan& plan, const std::vector<std::size_t>& items,
               const jit::jit_engine& engine, results::result_set& out,
               const std::function<void(const std::string&)>& on_count) {
  const auto groups = mode_groups(plan, items);
  compile_ahead compiler(g.request, engine, g.info.arch, groups);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    nvtx::scoped_range family_range(groups[gi].front()->family->space.config.family);
    const std::vector<jit::loaded_kernel> kernels =
        load_mode(*groups[gi].front(), compiler.get(gi), out);
    for (const work_item* item : groups[gi]) run_item(g, *item, kernels, out, on_count);
  }
}

/// The first item after `i` in plan order with another mode, if any.
const work_item* next_mode(const sweep_plan& plan, std::size_t i) {
  for (std::size_t j = i + 1; j < plan.items.size(); ++j) {
    if (plan.items[j].mode != plan.items[i].mode) return &plan.items[j];
  }
  return nullptr;
}

/// --gpus: items pulled from the claims folder in plan order, the ones this worker claimed before a
/// restart first (the journal replays what they measured). While an item is measured, the next
/// mode is compiled into the cache on a thread (for whichever worker claims it). The result is
/// worker I of N's part: its plan block names the items it took, as they are claimed.
void run_claimed(const item_tools& g, const sweep_plan& plan, const jit::jit_engine& engine,
                 results::result_set& out,
                 const std::function<void(const std::string&)>& on_count) {
  item_claims claims(g.request.claims_dir, g.request.worker);
  std::vector<std::size_t> again = claims.mine(plan.items.size());
  std::reverse(again.begin(), again.end());
  results::shard_coverage& part =
      out.plan->shard.emplace(results::shard_coverage{g.request.worker + 1, g.request.workers, {}});
  std::vector<jit::loaded_kernel> kernels;
  const space::mode* loaded_mode = nullptr;
  std::future<void> warm;
  const space::mode* warmed =
      nullptr;  // the mode warm compiles (or compiled): once per mode, not per item
  for (;;) {
    std::optional<std::size_t> i;
    if (!again.empty()) {
      i = again.back();
      again.pop_back();
    } else {
      i = claims.claim_next(plan.items.size());
    }
    if (!i) break;
    const work_item& item = plan.items[*i];
    part.items.push_back(static_cast<long long>(*i));
    if (loaded_mode != item.mode) {
      kernels =
          load_mode(item, engine.compile_all(item_requests(g.request, item, g.info.arch)), out);
      loaded_mode = item.mode;
    }
    const work_item* next = next_mode(plan, *i);
    if (next && next->mode != warmed) {
      if (warm.valid()) warm.get();
      warmed = next->mode;
      warm = std::async(std::launch::async, [&g, &engine, next] {
        (void)engine.compile_all(item_requests(g.request, *next, g.info.arch));
      });
    }
    run_item(g, item, kernels, out, on_count);
  }
}

}  // namespace

void check_plan(const sweep_request& request, const located_dir& kernels) {
  const sweep_plan plan = make_plan(request);
  std::set<std::string> ids;
  for (const family_work& w : plan.families) {
    require_kernel_source(kernels, w.space.config.source, w.space.config.family);
    for (const space::variant* v : w.variants) ids.insert(v->id);
  }
  for (const auto& [id, kind] : request.inject) {
    if (!ids.count(id))
      throw error(error_kind::usage,
                  "--inject-fault " + id + ": no such variant in the plan's families");
  }
}

namespace {

/// The compile units of a compile-only sweep: a mode's variants are compiled once, with its first
/// item; its later shapes need nothing more. Units the journal has are taken from it; the others'
/// compiles are numbered in plan order, and `family_of` gets each one's family (the ETA's groups).
std::vector<compile_unit> compile_units(const sweep_request& request, const sweep_plan& plan,
                                        const std::vector<std::string>& archs,
                                        const std::vector<std::size_t>& items,
                                        std::vector<std::string>& family_of) {
  std::vector<compile_unit> units;
  for (std::size_t i : items) {
    const work_item& item = plan.items[i];
    if (!item.first_of_mode) continue;
    compile_unit u{&item, item.family->space.config.family + "/" + item.mode->name, {}, 0, {}};
    if (!(request.log && request.log->state().units.count(u.name))) {
      for (const std::string& arch : archs) {
        for (auto& q : item_requests(request, item, arch)) u.requests.push_back(std::move(q));
      }
      u.first = family_of.size();
      u.results.resize(u.requests.size());
      family_of.insert(family_of.end(), u.requests.size(), item.family->space.config.family);
    }
    units.push_back(std::move(u));
  }
  return units;
}

}  // namespace

void compile_plan(const sweep_request& request, const std::vector<std::string>& archs,
                  const progress_fn& progress, results::result_set& out) {
  const auto start = clock_type::now();
  const sweep_plan plan = make_plan(request);
  const std::vector<std::size_t> items = describe_plan(plan, request, false, archs, out);
  out.context.tool_version = tool_version();  // no GPU: the build and the command line
  out.context.git_revision = git_revision();
  out.context.argv = request.argv;
  out.context.utc_time = timing::utc_now_iso8601();
  jit::require_cuda_include_dir();
  const auto engine = jit::make_jit_engine(request.kernel_dir, request.cache_dir, request.no_cache);
  std::vector<std::string> family_of;  // of each compile to do: the ETA's groups
  std::vector<compile_unit> units = compile_units(request, plan, archs, items, family_of);
  // The ETA (sweep/compile_eta.hpp): a pilot of a fixed random sample of the compiles first, each
  // family's cost learned from it, then unit by unit in plan order (each journaled when done).
  const std::size_t total = family_of.size();
  compile_eta eta(family_of);
  const auto first_compile = clock_type::now();
  std::size_t done = 0;
  const auto report = [&](const std::string& what) {
    if (!progress) return;
    progress_event e{++done, total, what, std::nullopt};
    e.eta_s = eta.eta_s(std::chrono::duration<double>(clock_type::now() - first_compile).count());
    progress(e);
  };
  std::vector<std::pair<compile_unit*, std::size_t>> owner(total);  // compile -> unit, position
  for (compile_unit& u : units) {
    for (std::size_t k = 0; k < u.requests.size(); ++k) owner[u.first + k] = {&u, k};
  }
  {
    std::vector<std::size_t> ids = pilot_order(total, 0x6b6b3374756e65ull);
    ids.resize(pilot_size(total));
    std::vector<jit::compile_request> pilot;
    for (std::size_t id : ids) pilot.push_back(owner[id].first->requests[owner[id].second]);
    const auto results =
        compile_batch(*engine, pilot, ids, [&](std::size_t id, const jit::compile_result& c) {
          eta.sampled(id, c.cache_hit ? 0 : c.compile_s);
          report(c.label);
        });
    for (std::size_t k = 0; k < ids.size(); ++k)
      owner[ids[k]].first->results[owner[ids[k]].second] = kept(results[k]);
    eta.learn();
  }
  for (compile_unit& u : units) {
    if (u.requests.empty()) {  // compiled before the sweep was stopped
      const auto& log = request.log->state();
      const auto& records = log.units.at(u.name);
      out.records.insert(out.records.end(), records.begin(), records.end());
      out.plan->compiles += static_cast<long long>(log.unit_compiles.at(u.name).first);
      out.plan->compile_failures += static_cast<long long>(log.unit_compiles.at(u.name).second);
      continue;
    }
    std::vector<jit::compile_request> rest;
    std::vector<std::size_t> ids;
    for (std::size_t k = 0; k < u.requests.size(); ++k) {
      if (u.results[k]) continue;  // the pilot's
      rest.push_back(u.requests[k]);
      ids.push_back(u.first + k);
    }
    const auto results =
        rest.empty()
            ? std::vector<jit::compile_result>{}
            : compile_batch(*engine, rest, ids, [&](std::size_t id, const jit::compile_result& c) {
                eta.done(id);
                report(c.label);
              });
    for (std::size_t k = 0; k < ids.size(); ++k) u.results[ids[k] - u.first] = kept(results[k]);
    finish_unit(request, u, archs.size(), out);
  }
  out.plan->wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
}

void run_sweep(const sweep_request& request, const progress_fn& progress,
               results::result_set& out) {
  const auto start = clock_type::now();
  const sweep_plan plan = make_plan(request);
  session::gpu_session gpu(request.kernel_dir, request.cache_dir, request.no_cache);
  const device::device_info& info = gpu.info();
  const std::vector<std::size_t> items = describe_plan(plan, request, true, {info.arch}, out);
  out.context = timing::capture_context(info, request.argv);
  const jit::jit_engine& engine = gpu.engine();
  const timing::timer& timer = gpu.timer();
  const item_tools g{request, info, timer, gpu.verifier(), seed_or_draw(request.seed)};

  nvtx::scoped_range sweep_range("sweep");
  // The copy ceiling first: each record's fraction of it is set as the record is taken.
  double& ceiling = out.plan->copy_ceiling_tb_s;
  if (request.log && request.log->state().ceiling_tb_s) {
    ceiling = *request.log->state().ceiling_tb_s;  // the first run's, for every record alike
  } else {
    ceiling =
        timing::measure_copy_ceiling(engine, info, timer, request.kernel_dir, request.config_dir);
    if (request.log) request.log->add_ceiling(ceiling);
  }
  out.context.copy_ceiling_tb_s = ceiling;
  out.context.empty_kernel_us = timing::measure_empty_kernel(timer, gpu.helpers());
  const std::size_t counts =
      request.tokens.empty() ? request.config.tokens.size() : request.tokens.size();
  const std::size_t total =
      (request.claims_dir.empty() ? items.size() : plan.items.size()) * counts;
  std::size_t done = 0;
  const auto on_count = [&](const std::string& line) {
    if (progress) progress({++done, total, line, std::nullopt});
  };
  if (request.claims_dir.empty()) {
    run_shard(g, plan, items, engine, out, on_count);
  } else {
    run_claimed(g, plan, engine, out, on_count);
  }
  out.plan->wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace kk3::sweep
