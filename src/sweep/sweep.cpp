#include "sweep/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/text.hpp"
#include "core/watch.hpp"
#include "device/device_info.hpp"
#include "device/resources.hpp"
#include "families/limits.hpp"
#include "families/registry.hpp"
#include "jit/batch.hpp"
#include "jit/plan.hpp"
#include "jit/toolkit.hpp"
#include "timing/helper_kernels.hpp"
#include "timing/timer.hpp"
#include "verify/unlaunchable.hpp"
#include "verify/verifier.hpp"
#include "sweep/journal.hpp"
#include "sweep/screening.hpp"

namespace kk3::sweep {
namespace {

volatile std::sig_atomic_t g_stop_requested = 0;

using clock_type = std::chrono::steady_clock;

/// One family of the plan, loaded: its space, the modes and variants swept.
struct family_work {
  families::family_space space;
  std::vector<const space::mode*> modes;
  std::vector<const space::variant*> variants;  ///< shipped only; the reference always included
  std::vector<long long> heads;                 ///< model head counts (families with heads)
  const space::variant* reference = nullptr;
  const family_plan* plan = nullptr;            ///< its entry in the plan
};

bool has_heads(const family_work& w) { return w.space.impl->model_shape(1, 0, 0).heads > 0; }

/// The model shapes of a mode: one per head count (heads families), else one (attn_res: the
/// mode's compile-time block count).
std::vector<families::shape> model_shapes(const family_work& w, const space::mode& m, long long tokens) {
  std::vector<families::shape> out;
  if (has_heads(w)) {
    for (long long h : w.heads) out.push_back(w.space.impl->model_shape(tokens, h, 0));
  } else {
    out.push_back(w.space.impl->model_shape(tokens, 0, std::max(0LL, m.define_or("NB", 0))));
  }
  return out;
}

std::vector<family_work> load_plan(const sweep_request& r) {
  std::vector<family_work> out;
  for (const family_plan& p : r.config.families) {
    if (!r.family_filter.empty() && p.family != r.family_filter) continue;
    family_work w;
    w.plan = &p;
    if (r.family_config_file) {
      w.space = families::load_family_space_from(*r.family_config_file);
    } else {
      const families::family* f = nullptr;
      try {
        f = &families::find_family(p.family);
      } catch (const error& e) {
        throw error(error_kind::config, r.config.file.string() + ": /families/" + p.family + ": " + e.what());
      }
      if (f->is_example()) throw error(error_kind::config, r.config.file.string() + ": /families/" + p.family + ": an example family, not swept");
      w.space = families::load_family_space(*f, r.config_dir);
    }
    const std::string where = r.config.file.string() + ": /families/" + p.family;
    for (const auto& m : w.space.config.modes) {
      if (p.modes.empty() || std::find(p.modes.begin(), p.modes.end(), m.name) != p.modes.end()) w.modes.push_back(&m);
    }
    for (const std::string& name : p.modes) {
      if (std::none_of(w.modes.begin(), w.modes.end(), [&](const space::mode* m) { return m->name == name; })) {
        std::vector<std::string> known;
        for (const auto& m : w.space.config.modes) known.push_back(m.name);
        throw error(error_kind::config, where + "/modes: no mode '" + name + "' (modes: " + join(known, ", ") + ")");
      }
    }
    for (const auto& v : w.space.variants) {
      if (v.test_only) continue;
      if (v.is_reference) w.reference = &v;
      const bool wanted = p.variants.empty() || v.is_reference ||
                          std::find(p.variants.begin(), p.variants.end(), v.id) != p.variants.end();
      if (wanted) w.variants.push_back(&v);
    }
    for (const std::string& id : p.variants) {
      if (id != "reference" && std::none_of(w.variants.begin(), w.variants.end(), [&](const space::variant* v) { return v->id == id; })) {
        throw error(error_kind::config, where + "/variants: no variant '" + id + "' in " + w.space.config.file.string());
      }
    }
    if (!w.reference) throw error(error_kind::config, w.space.config.file.string() + ": /reference: not among the variants");
    w.heads = p.heads.empty() ? std::vector<long long>{w.space.impl->model_shape(1, 0, 0).heads} : p.heads;
    if (!has_heads(w) && !p.heads.empty()) throw error(error_kind::config, where + "/heads: family " + p.family + " has no heads");
    out.push_back(std::move(w));
  }
  if (out.empty()) {
    throw error(error_kind::usage, "--family: the plan " + r.config.file.string() + " has no family '" + r.family_filter + "'");
  }
  return out;
}

family_summary summarize_family(const family_work& w) {
  family_summary s;
  s.family = w.space.config.family;
  s.entry = w.space.config.entry;
  s.source = w.space.config.source;
  s.shape_key = has_heads(w) ? "heads" : "blocks";
  for (const auto& k : w.space.config.knobs) s.knobs.push_back(k.name);
  s.reference = w.reference->id;
  s.reference_knobs = w.reference->knobs;
  for (const space::mode* m : w.modes) s.modes.emplace_back(m->name, m->defines);
  return s;
}

record make_record(const family_work& w, const space::mode& m, const families::shape& s, const space::variant& v) {
  record r;
  r.family = w.space.config.family;
  r.mode = m.name;
  r.variant = v.id;
  r.tokens = s.tokens;
  r.heads = s.heads;
  r.blocks = s.blocks;
  r.knobs = v.knobs;
  r.reference = v.is_reference;
  return r;
}

/// A variant's compile request, with the test-only fault compiled in when --inject-fault names it.
jit::compile_request make_request(const sweep_request& r, const family_work& w, const space::mode& m, const space::variant& v,
                                  const std::string& arch) {
  jit::compile_request q = jit::make_request(w.space.config, m, v, arch, r.kernel_dir);
  if (const auto it = r.inject.find(v.id); it != r.inject.end()) {
    q.options.push_back("-DKK3_INJECT_FAULT=" + std::to_string(it->second));
    q.label += " (fault injected)";
  }
  return q;
}

/// The token counts swept: --tokens, else the plan's.
const std::vector<long long>& swept_tokens(const sweep_request& r) { return r.tokens.empty() ? r.config.tokens : r.tokens; }

/// A compiled and loaded variant of one mode.
struct loaded {
  const space::variant* variant = nullptr;
  std::unique_ptr<device::module> module;
  CUfunction function = nullptr;
};

/// The variants of `kernels` the GPU cannot launch at shape `s` (variant -> reason). They are
/// no candidates there. Throws error(verify) when the reference is among them: nothing can be
/// selected or verified without it.
std::map<std::string, std::string> unlaunchable_at(const family_work& w, const space::mode& m, const families::shape& s,
                                                   const std::vector<loaded>& kernels, const device::device_info& info) {
  std::map<std::string, std::string> out;
  for (const loaded& k : kernels) {
    std::string why = verify::unlaunchable_unless_reference(*w.space.impl, *k.variant, m, s, k.function, info);
    if (!why.empty()) out[k.variant->id] = std::move(why);
  }
  return out;
}

/// A record of a variant that was not measured at shape `s`, with its status and reason.
record unmeasured_record(const family_work& w, const space::mode& m, const families::shape& s, const space::variant& v,
                         const std::string& status, const std::string& reason) {
  record r = make_record(w, m, s, v);
  r.status = status;
  r.reason = reason;
  return r;
}

verification to_verification(const verify::verify_record& v, unsigned long long seed) {
  verification out;
  out.status = verify::to_string(v.outcome);
  out.reason = v.reason.substr(0, v.reason.find('\n'));
  out.seed = seed;
  out.checks = v.checks;
  out.shapes = v.shapes;
  if (v.first_mismatch) {
    const auto& f = *v.first_mismatch;
    out.first_mismatch = f.tensor + "[" + std::to_string(f.index) + "] expected " + f.expected + " got " + f.got + " at " +
                         f.shape + " (against " + f.against + ")";
  }
  return out;
}

/// Measures the copy ceiling of this GPU the way the benchmarks do: the best copy_example
/// variant at T = 16384 (each byte read once and written once).
double measure_ceiling(const jit::jit_engine& engine, const device::device_info& info, const timing::timer& timer,
                       const std::filesystem::path& kernel_dir, const std::filesystem::path& config_dir) {
  const families::family& copy = families::find_family("copy_example");
  const families::family_space space = families::load_family_space(copy, config_dir);
  const space::mode& m = space.config.modes.front();
  const families::shape s = copy.model_shape(16384, 0, 0);
  const auto ws = copy.make_workspace(s, m, 1);
  std::vector<jit::compile_request> requests;
  for (const auto& v : space.variants) requests.push_back(jit::make_request(space.config, m, v, info.arch, kernel_dir));
  const auto compiled = engine.compile_all(requests);
  std::vector<std::unique_ptr<device::module>> modules;
  std::vector<timing::candidate> candidates;
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    if (!compiled[i].ok) continue;
    modules.push_back(std::make_unique<device::module>(compiled[i].cubin, compiled[i].label));
    candidates.push_back(timing::make_candidate(copy, space.variants[i], m, s, modules.back()->function(compiled[i].lowered_name), {ws.get()}));
  }
  if (candidates.empty()) return 0;
  timing::timing_options o;
  o.stop.max_time_s = 0.05;
  double best = 0;
  for (const auto& r : timer.measure(candidates, o)) best = std::max(best, r.bytes_moved / (r.stats.median * 1e-6) / 1e12);
  return best;
}

}  // namespace

void request_stop() { g_stop_requested = 1; }

namespace {

/// Every token count the plan (or --tokens) and its verification ask of a family fits the
/// family's buffers (families/limits.hpp); errors name the plan's file and JSON path, or the flag.
void check_token_limits(const sweep_request& request, const family_work& w) {
  const sweep_config& c = request.config;
  const family_plan& p = *w.plan;
  const families::family& f = *w.space.impl;
  auto fail = [&](const std::string& at, const std::string& what) {
    throw error(error_kind::config, c.file.string() + ": " + at + ": " + what);
  };
  auto largest = [](const std::vector<long long>& v) {  // the index of the largest count
    return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
  };
  const std::string at = "/families/" + p.family;
  const std::vector<long long> heads = p.heads.empty() ? std::vector<long long>{0} : p.heads;  // 0: the model's
  for (const space::mode* m : w.modes) {
    const long long blocks = std::max(0LL, m->define_or("NB", 0));
    for (std::size_t j = 0; j < heads.size(); ++j) {
      if (families::max_tokens(f, *m, heads[j], blocks) < 1) {
        fail(p.heads.empty() ? at : at + "/heads/" + std::to_string(j), families::token_limit_problem(f, *m, 1, heads[j], blocks));
      }
      if (!request.tokens.empty()) {
        families::check_tokens(f, *m, request.tokens[largest(request.tokens)], heads[j], blocks, "--tokens");
      } else if (!c.tokens.empty()) {
        const std::size_t i = largest(c.tokens);
        const std::string problem = families::token_limit_problem(f, *m, c.tokens[i], heads[j], blocks);
        if (!problem.empty()) fail("/tokens/" + std::to_string(i), problem);
      }
      if (!c.verify_tokens.empty()) {
        const std::size_t i = largest(c.verify_tokens);
        const std::string problem = families::token_limit_problem(f, *m, c.verify_tokens[i], heads[j], blocks);
        if (!problem.empty()) fail("/verify/tokens/" + std::to_string(i), problem);
      }
    }
  }
}

}  // namespace

void check_plan(const sweep_request& request) {
  std::set<std::string> ids;
  for (const family_work& w : load_plan(request)) {
    check_token_limits(request, w);
    for (const space::mode* m : w.modes) {
      for (long long t : swept_tokens(request)) (void)model_shapes(w, *m, t);
    }
    for (const space::variant* v : w.variants) ids.insert(v->id);
  }
  for (const auto& [id, kind] : request.inject) {
    if (!ids.count(id)) throw error(error_kind::usage, "--inject-fault " + id + ": no such variant in the plan's families");
  }
}

void compile_plan(const sweep_request& request, const std::vector<std::string>& archs, const progress_fn& progress, sweep_result& out) {
  const auto start = clock_type::now();
  const std::vector<family_work> plan = load_plan(request);
  out.config = request.config;
  out.archs = archs;
  out.argv = request.argv;
  jit::require_cuda_include_dir();
  const auto engine = jit::make_jit_engine(request.kernel_dir, request.cache_dir, request.no_cache);
  std::size_t total = 0, done = 0;
  for (const auto& w : plan) total += w.modes.size() * w.variants.size() * archs.size();
  for (const auto& w : plan) {
    out.families.push_back(summarize_family(w));
    for (const space::mode* m : w.modes) {
      const std::string unit = w.space.config.family + "/" + m->name;
      if (request.log && request.log->state().units.count(unit)) {  // compiled before the sweep was stopped
        const auto& records = request.log->state().units.at(unit);
        out.records.insert(out.records.end(), records.begin(), records.end());
        out.compiles += request.log->state().unit_compiles.at(unit).first;
        out.compile_failures += request.log->state().unit_compiles.at(unit).second;
        done += w.variants.size() * archs.size();
        if (progress) progress({done, total, unit + ": from the journal"});
        continue;
      }
      const std::size_t first_record = out.records.size(), compiles_before = out.compiles, failures_before = out.compile_failures;
      std::vector<jit::compile_request> requests;
      for (const space::variant* v : w.variants) {
        for (const auto& arch : archs) requests.push_back(make_request(request, w, *m, *v, arch));
      }
      const auto results = engine->compile_all(requests, [&](const jit::compile_result& r) {
        ++done;
        if (progress) progress({done, total, r.label});
      });
      for (std::size_t i = 0; i < w.variants.size(); ++i) {
        record r = make_record(w, *m, model_shapes(w, *m, 1).front(), *w.variants[i]);
        r.tokens = 0;
        r.status = "unverified";
        for (std::size_t a = 0; a < archs.size(); ++a) {
          const jit::compile_result& c = results[i * archs.size() + a];
          ++out.compiles;
          if (!c.ok) {
            ++out.compile_failures;
            r.status = "compile_failed";
            r.reason += (r.reason.empty() ? "" : "; ") + c.arch + ": " + c.log.substr(0, c.log.find('\n'));
          }
        }
        out.records.push_back(std::move(r));
      }
      if (request.log) {
        request.log->add_unit(unit, std::vector<record>(out.records.begin() + static_cast<std::ptrdiff_t>(first_record), out.records.end()),
                              out.compiles - compiles_before, out.compile_failures - failures_before);
      }
    }
  }
  out.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
}

void run_sweep(const sweep_request& request, const progress_fn& progress, sweep_result& out) {
  const auto start = clock_type::now();
  const std::vector<family_work> plan = load_plan(request);
  out.config = request.config;
  out.argv = request.argv;
  out.timed = true;

  const device::device_info info = device::first_gpu();
  const device::context ctx(0);
  out.context = report::capture_context(info, request.argv);
  out.archs = {info.arch};
  const auto engine_owner = jit::make_jit_engine(request.kernel_dir, request.cache_dir, request.no_cache);
  const jit::jit_engine& engine = *engine_owner;
  const timing::helper_kernels helpers(engine, info.arch, request.kernel_dir);
  const timing::timer timer(info, helpers);
  const verify::verifier verifier(info, engine, request.kernel_dir, helpers);
  const unsigned long long seed = request.seed ? request.seed : (std::random_device{}() | 1ull);
  const std::vector<long long>& tokens = swept_tokens(request);

  nvtx::range sweep_range("sweep");
  if (request.log && request.log->state().ceiling_tb_s) {
    out.ceiling_tb_s = *request.log->state().ceiling_tb_s;  // the first run's, for every record alike
  } else {
    out.ceiling_tb_s = measure_ceiling(engine, info, timer, request.kernel_dir, request.config_dir);
    if (request.log) request.log->add_ceiling(out.ceiling_tb_s);
  }

  // Compilation runs ahead on its own thread, mode by mode, while earlier modes are measured.
  struct mode_job {
    const family_work* work;
    const space::mode* mode;
    std::promise<std::vector<jit::compile_result>> promise;
  };
  std::vector<std::unique_ptr<mode_job>> jobs;
  std::size_t total = 0, done = 0;
  for (const auto& w : plan) {
    out.families.push_back(summarize_family(w));
    for (const space::mode* m : w.modes) {
      jobs.push_back(std::make_unique<mode_job>(mode_job{&w, m, {}}));
      total += tokens.size() * model_shapes(w, *m, 1).size();
    }
  }
  std::atomic<bool> abandon{false};  // set when the sweep ends early: compile no further modes
  std::thread compiler([&] {
    for (auto& j : jobs) {
      if (abandon) break;
      std::vector<jit::compile_request> requests;
      for (const space::variant* v : j->work->variants) requests.push_back(make_request(request, *j->work, *j->mode, *v, info.arch));
      try {
        j->promise.set_value(engine.compile_all(requests));
      } catch (...) {
        j->promise.set_exception(std::current_exception());
      }
    }
  });
  struct joiner {
    std::thread& t;
    std::atomic<bool>& abandon;
    ~joiner() {
      abandon = true;  // after the last mode this changes nothing; after an error it stops early
      t.join();
    }
  } join_compiler{compiler, abandon};

  for (auto& job : jobs) {
    const family_work& w = *job->work;
    const space::mode& m = *job->mode;
    nvtx::range family_range(w.space.config.family);
    const std::vector<jit::compile_result> compiled = job->promise.get_future().get();
    std::vector<loaded> kernels;
    for (std::size_t i = 0; i < compiled.size(); ++i) {
      ++out.compiles;
      if (!compiled[i].ok) {
        ++out.compile_failures;
        record r = make_record(w, m, model_shapes(w, m, 1).front(), *w.variants[i]);
        r.tokens = 0;
        r.status = "compile_failed";
        r.reason = compiled[i].log.substr(0, compiled[i].log.find('\n'));
        out.records.push_back(std::move(r));
        continue;
      }
      loaded k;
      k.variant = w.variants[i];
      k.module = std::make_unique<device::module>(compiled[i].cubin, compiled[i].label);
      k.function = k.module->function(compiled[i].lowered_name);
      kernels.push_back(std::move(k));
    }
    if (std::none_of(kernels.begin(), kernels.end(), [](const loaded& k) { return k.variant->is_reference; })) {
      throw error(error_kind::compile, w.space.config.family + "/" + m.name + ": the reference variant does not compile");
    }

    std::map<std::string, verification> verified;  // per variant, for this mode
    for (std::size_t shape_index = 0; shape_index < model_shapes(w, m, 1).size(); ++shape_index) {
      const families::shape s0 = model_shapes(w, m, 1)[shape_index];
      const std::string skey = shape_key(w.space.config.family, m.name, s0.heads, s0.blocks);
      // Variants that ended or hung an earlier worker at this shape (--variant-timeout, isolation):
      // left out of it from then on, recorded where they failed.
      std::map<std::string, journal_fault> faulty;
      if (request.log) {
        for (const journal_fault& f : request.log->state().faults) {
          if (f.shape == skey) faulty[f.variant] = f;
        }
      }
      if (faulty.count(w.reference->id)) {
        const journal_fault& f = faulty.at(w.reference->id);
        throw error(error_kind::launch, skey + ": the reference variant " + f.variant + " " + f.status + ": " + f.reason);
      }

      // Measure every count first, choosing optimistically (as if every finalist will verify)
      // only to protect the likely incumbent from screening; then verify all finalists of the
      // shape in one verifier call, and select for real over the final rounds.
      std::vector<std::pair<long long, std::vector<select::timed_variant>>> finals_by_count;
      std::map<std::string, std::vector<std::size_t>> final_records;  // variant -> its final records
      std::map<std::string, const space::variant*> by_id;
      for (const space::variant* v : w.variants) by_id[v->id] = v;
      std::optional<std::string> optimistic;
      std::vector<std::string> carried;  // the previous count's first-round order
      long long last_full = 0;
      for (long long t : tokens) {
        if (g_stop_requested) throw error(error_kind::usage, "interrupted: stopped after " + std::to_string(done) + " of " + std::to_string(total) + " shapes");
        const families::shape s = model_shapes(w, m, t)[shape_index];
        const std::string ckey = count_key(skey, t);
        // Which variants this count screens follows from the counts before it, so a resumed
        // sweep derives it as an uninterrupted one does; only the measurements come from the
        // journal.
        const bool full_screen = last_full == 0 || request.config.screen.carry == 0 ||
                                 static_cast<double>(t) >= request.config.screen.full_every * static_cast<double>(last_full);
        if (full_screen) last_full = t;
        journal_count count;
        const bool journaled = request.log && request.log->state().counts.count(ckey);
        if (journaled) {
          count = request.log->state().counts.at(ckey);  // measured before the sweep was stopped
        } else {
          watch::set_shape(skey, t);
          count.tokens = t;
          const auto ws = w.space.impl->make_workspace(s, m, seed + static_cast<unsigned long long>(t));
          std::set<std::string> protect = {w.reference->id};
          if (optimistic) protect.insert(*optimistic);
          std::set<std::string> pool;
          if (!full_screen) {
            for (std::size_t i = 0; i < carried.size() && i < request.config.screen.carry; ++i) pool.insert(carried[i]);
            pool.insert(protect.begin(), protect.end());
          }
          // Variants the GPU cannot launch at this shape are no candidates: a record each, per count.
          const std::map<std::string, std::string> unlaunchable = unlaunchable_at(w, m, s, kernels, info);
          std::vector<timing::candidate> candidates;
          for (const loaded& k : kernels) {
            const std::string& id = k.variant->id;
            if (faulty.count(id) || unlaunchable.count(id) || (!full_screen && !pool.count(id))) continue;
            candidates.push_back(timing::make_candidate(*w.space.impl, *k.variant, m, s, k.function, {ws.get()}));
          }
          screened result;
          {
            nvtx::range shape_range(m.name + "-T" + std::to_string(t) + (s.heads ? "-H" + std::to_string(s.heads) : ""), t);
            result = screen_and_measure(timer, candidates, protect, request.config);
          }
          count.carried = result.first_round_order;
          for (const auto& [id, last] : result.last) {
            record r = make_record(w, m, s, *by_id.at(id));
            const bool final = std::any_of(result.finals.begin(), result.finals.end(), [&id = id](const auto& f) { return f.label == id; });
            r.rounds = last.second;
            r.stats = last.first.stats;
            r.samples_us = last.first.samples_us;
            r.bytes_moved = last.first.bytes_moved;
            r.status = final ? "unverified" : "dropped";  // finalists: until the shape's are verified below
            if (!final) r.reason = "screened out after " + std::to_string(last.second) + " round(s)";
            count.records.push_back(std::move(r));
          }
          for (const auto& [id, f] : faulty) {
            if (f.tokens == t) count.records.push_back(unmeasured_record(w, m, s, *by_id.at(id), f.status, f.reason));
          }
          for (const auto& [id, why] : unlaunchable) {
            count.records.push_back(unmeasured_record(w, m, s, *by_id.at(id), "unlaunchable", why));
          }
          if (request.log) request.log->add_count(ckey, count);
        }
        carried = count.carried;
        std::vector<select::timed_variant> timed;  // the final round
        std::size_t timed_count = 0;
        for (record& r : count.records) {
          if (r.status == "unverified") {
            timed.push_back({r.variant, r.stats->median, r.stats->rel_stderr_median, true});
            final_records[r.variant].push_back(out.records.size());
          }
          timed_count += r.stats.has_value();
          out.records.push_back(std::move(r));
        }
        if (const auto c = select::choose(t, timed, w.reference->id, optimistic, request.config.selection)) optimistic = c->winner;
        finals_by_count.emplace_back(t, timed);
        ++done;
        if (progress) {
          progress({done, total, w.space.config.family + "/" + m.name + " T=" + std::to_string(t) + (s.heads ? " H=" + std::to_string(s.heads) : "") +
                                     ": " + std::to_string(timed_count) + " timed, " + std::to_string(timed.size()) + " finalists"});
        }
      }

      // Verify this shape's finalists that are not verified yet in this mode (the verifier
      // runs the reference first, so it is always among them).
      if (request.log && request.log->state().verified.count(skey)) {
        for (const auto& [id, v] : request.log->state().verified.at(skey)) verified[id] = v;
      }
      std::vector<space::variant> to_verify = {*w.reference};
      for (const auto& [id, indices] : final_records) {
        if (!verified.count(id) && !faulty.count(id) && id != w.reference->id) to_verify.push_back(*by_id.at(id));
      }
      if (to_verify.size() > 1 || !verified.count(w.reference->id)) {
        watch::set_shape(skey, 0);
        verify::verify_options vo;
        vo.seed = seed;
        vo.tokens = request.config.verify_tokens;
        if (s0.heads) vo.heads = {s0.heads};
        std::map<std::string, verification> now;
        for (const verify::verify_record& v : verifier.verify_mode(w.space, m, to_verify, vo)) {
          // Under a supervisor a fault is the variant's, not the sweep's: this worker ends and
          // the next one verifies the others without it.
          if (v.outcome == verify::status::launch_failed) throw error(error_kind::launch, v.variant + ": " + v.reason);
          // A finalist the GPU cannot launch at a verification shape (its reason names it) is
          // recorded unlaunchable, like any outcome but ok: not qualified, never selected.
          now[v.variant] = to_verification(v, seed);
        }
        verified.insert(now.begin(), now.end());
        if (request.log) request.log->add_verified(skey, now);
      }
      for (const auto& [id, f] : faulty) {
        if (f.tokens == 0) verified[id] = verification{f.status, f.reason, seed, 0, {}, {}};  // it failed in verification
      }
      for (const auto& [id, indices] : final_records) {
        const auto found = verified.find(id);
        for (std::size_t i : indices) {
          if (found == verified.end()) {  // faulted at a later count, after being a finalist here
            out.records[i].status = faulty.at(id).status;
            out.records[i].reason = "not verified: " + faulty.at(id).reason;
            continue;
          }
          out.records[i].verified = found->second;
          out.records[i].status = found->second.status;
          out.records[i].reason = found->second.reason;
        }
      }

      std::vector<select::choice> choices;
      std::optional<std::string> previous;
      for (auto& [t, timed] : finals_by_count) {
        for (auto& tv : timed) tv.qualified = verified.count(tv.variant) && verified.at(tv.variant).status == "ok";
        if (const auto c = select::choose(t, timed, w.reference->id, previous, request.config.selection)) {
          choices.push_back(*c);
          previous = c->winner;
        }
      }
      out.dispatch.push_back({w.space.config.family, m.name, s0.heads, s0.blocks, select::merge(choices)});
    }
  }
  out.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace kk3::sweep
