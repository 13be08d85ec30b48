#include "results/reader.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "device/device_info.hpp"
#include "results/codec.hpp"
#include "results/entries.hpp"
#include "results/json_fields.hpp"

namespace kk3::results {
namespace {

using json = nlohmann::ordered_json;

// The context block. For the tables, the GPU's name and arch and the build are required.
run_context read_context(const json_fields& r, const json& doc, reading how) {
  run_context c;
  const json& context = r.object(doc, "", "context");
  const std::string at = "/context";
  const std::string g = at + "/gpu";
  const json* gpu = how == reading::tables ? &r.object(context, at, "gpu") : r.find(context, "gpu");
  auto text = [&](const json& parent, const std::string& where, const char* key) {
    return r.strict() ? r.string(parent, where, key) : r.optional_string(parent, where, key);
  };
  if (gpu && !gpu->is_null()) {
    if (!gpu->is_object()) r.fail(g, "expected an object or null");
    c.gpu.name = text(*gpu, g, "name");
    c.gpu.arch = text(*gpu, g, "arch");
    c.gpu.pci_bus_id = r.optional_string(*gpu, g, "pci_bus_id");
    device::parse_compute_capability(r.optional_string(*gpu, g, "compute_capability"), c.gpu);
    c.gpu.driver_version =
        device::parse_version_string(r.optional_string(*gpu, g, "driver_version"));
    c.gpu.sm_count = static_cast<int>(r.optional_integer(*gpu, g, "sm_count"));
    c.gpu.l2_bytes = r.optional_integer(*gpu, g, "l2_bytes");
    c.gpu.memory_bytes = r.optional_integer(*gpu, g, "memory_bytes");
    c.gpu.max_sm_clock_mhz = static_cast<int>(r.optional_integer(*gpu, g, "max_sm_clock_mhz"));
    c.gpu.max_memory_clock_mhz =
        static_cast<int>(r.optional_integer(*gpu, g, "max_memory_clock_mhz"));
    if (r.find(*gpu, "sm_clock_mhz") || r.find(*gpu, "memory_clock_mhz")) {
      c.gpu.clocks = device::gpu_clocks{};
      c.gpu.clocks->sm_mhz =
          static_cast<int>(std::llround(r.optional_number(*gpu, g, "sm_clock_mhz")));
      c.gpu.clocks->memory_mhz =
          static_cast<int>(std::llround(r.optional_number(*gpu, g, "memory_clock_mhz")));
    }
  }
  c.tool_version = text(context, at, "tool_version");
  c.git_revision = text(context, at, "git_revision");
  c.utc_time = text(context, at, "utc_time");
  c.nvrtc_version = r.optional_string(context, at, "nvrtc_version");
  if (r.find(context, "argv")) c.argv = r.strings(context, at, "argv");
  if (const json* f = r.find(context, "figures")) {
    if (!f->is_object()) r.fail(at + "/figures", "expected an object");
    c.copy_ceiling_tb_s = r.optional_number(*f, at + "/figures", "copy_ceiling_tb_s");
    c.empty_kernel_us = r.optional_number(*f, at + "/figures", "empty_kernel_us");
  }
  return c;
}

// plan.shard: null (the file covers every item) or {"index", "count", "items"}.
std::optional<shard_coverage> read_shard(const json_fields& r, const json& plan,
                                         std::size_t n_items) {
  const json* shard = r.find(plan, "shard");
  if (!shard || shard->is_null()) return std::nullopt;
  if (!shard->is_object()) r.fail("/plan/shard", "expected null or an object");
  shard_coverage s;
  s.index = r.integer(*shard, "/plan/shard", "index");
  if (!r.find(*shard, "count") && !r.strict()) return s;
  s.count = r.integer(*shard, "/plan/shard", "count");
  if (s.count < 1 || s.index < 1 || s.index > s.count) {
    r.fail("/plan/shard", "expected 1 <= index <= count, got " + std::to_string(s.index) + "/" +
                              std::to_string(s.count));
  }
  const json& items = r.array(*shard, "/plan/shard", "items");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "/plan/shard/items/" + std::to_string(i);
    const long long v = r.integer_value(items[i], at);
    if (v < 0 || static_cast<std::size_t>(v) >= n_items)
      r.fail(at, std::to_string(v) + " is not an index into /plan/items (0 to " +
                     std::to_string(static_cast<long long>(n_items) - 1) + ")");
    if (!s.items.empty() && v <= s.items.back()) r.fail(at, "the indices must ascend");
    s.items.push_back(v);
  }
  return s;
}

// plan.merged_from: the inputs of a merged file.
std::vector<merged_input> read_merged_from(const json_fields& r, const json& plan) {
  std::vector<merged_input> out;
  if (!r.find(plan, "merged_from")) return out;
  const json& list = r.array(plan, "/plan", "merged_from");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "/plan/merged_from/" + std::to_string(i);
    if (!list[i].is_object()) r.fail(at, "expected an object");
    merged_input m{r.string(list[i], at, "file"), std::nullopt,
                   r.optional_string(list[i], at, "utc_time")};
    if (std::string shard = r.optional_string(list[i], at, "shard"); !shard.empty())
      m.shard = std::move(shard);
    out.push_back(std::move(m));
  }
  return out;
}

// The plan block: timed or not, the token counts and selection rule, what was compiled, the
// sharding fields (plan.digest, plan.items, plan.shard: written since sharding, issue 15).
void read_plan(const json_fields& r, const json& doc, result_set& out) {
  const json* plan = r.find(doc, "plan");
  if (!plan) return;
  if (!plan->is_object()) r.fail("/plan", "expected an object");
  plan_block p;
  if (r.find(*plan, "timed")) p.timed = r.optional_boolean(*plan, "/plan", "timed");
  p.copy_ceiling_tb_s = r.optional_number(*plan, "/plan", "copy_ceiling_tb_s");
  if (out.context.copy_ceiling_tb_s == 0) out.context.copy_ceiling_tb_s = p.copy_ceiling_tb_s;
  p.config = r.optional_string(*plan, "/plan", "config");
  if (r.find(*plan, "tokens")) p.tokens = r.integers(*plan, "/plan", "tokens");
  if (r.find(*plan, "archs")) p.archs = r.strings(*plan, "/plan", "archs");
  for (auto [key, field] : {std::pair{"min_gain", &p.min_gain},
                            {"noise_sigmas", &p.noise_sigmas},
                            {"noise_floor", &p.noise_floor}}) {
    if (r.find(*plan, key)) *field = r.number(*plan, "/plan", key);
  }
  p.compiles = r.optional_integer(*plan, "/plan", "compiles");
  p.compile_failures = r.optional_integer(*plan, "/plan", "compile_failures");
  p.wall_s = r.optional_number(*plan, "/plan", "wall_s");
  p.digest = r.optional_string(*plan, "/plan", "digest");
  if (const json* b = r.find(*plan, "baseline"); b && !b->is_null()) {
    if (!b->is_object()) r.fail("/plan/baseline", "expected an object or null");
    p.baseline = {r.string(*b, "/plan/baseline", "file"), r.string(*b, "/plan/baseline", "digest")};
  }
  if (const json* s = r.find(*plan, "shipped"); s && !s->is_null()) {
    const std::string at = "/plan/shipped";
    if (!s->is_object()) r.fail(at, "expected an object or null");
    p.shipped = shipped_tables{r.string(*s, at, "file"),         r.string(*s, at, "digest"),
                               r.string(*s, at, "gpu"),          r.string(*s, at, "arch"),
                               r.string(*s, at, "git_revision"), r.strings(*s, at, "timed_archs")};
  }
  if (r.find(*plan, "items")) p.items = r.strings(*plan, "/plan", "items");
  p.shard = read_shard(r, *plan, p.items.size());
  p.merged_from = read_merged_from(r, *plan);
  out.plan = std::move(p);
}

void read_sweep(const json_fields& r, const json& doc, result_set& out) {
  read_plan(r, doc, out);
  out.families = read_families(r, doc);
  {  // reading::tables too: a mistyped record is an input error wherever the file is read
    std::map<std::string, const results::objective*> objectives;  // before schema 3: graph
    for (const family_summary& f : out.families) objectives[f.family] = &f.objective;
    const json& records = r.array(doc, "", "records");
    out.records.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      out.records.push_back(read_record(r, records[i], "/records/" + std::to_string(i)));
      if (const auto o = objectives.find(out.records.back().family); o != objectives.end())
        out.records.back().objective = *o->second;
    }
  }
  // An untimed sweep (no GPU) has no dispatch tables (an empty list, or none in older files).
  if (r.find(doc, "dispatch")) {
    const json& dispatch = r.array(doc, "", "dispatch");
    for (std::size_t i = 0; i < dispatch.size(); ++i)
      out.dispatch.push_back(read_dispatch(r, dispatch[i], "/dispatch/" + std::to_string(i)));
  }
}

// Why `doc` has no dispatch tables to read (reading::tables), or empty.
std::string not_a_sweep(const json& doc) {
  if (!doc.is_object()) return "not a JSON object, not a sweep";
  const auto kind = doc.find("kind");
  if (kind == doc.end()) return "no \"kind\", not a sweep";
  if (!kind->is_string() || kind->get<std::string>() != "sweep")
    return "kind " + kind->dump() + ", not a sweep";
  const auto plan = doc.find("plan");
  if (plan != doc.end() && plan->is_object() && plan->value("timed", true) == false)
    return "an untimed sweep (compiled only, no GPU: nothing was timed, so it has no dispatch "
           "tables to emit)";
  return {};
}

}  // namespace

result_set read_result_set(const std::filesystem::path& file, reading how) {
  const std::string bytes = read_file(file);
  const json doc = parse_json_text(file, bytes);  // a syntax error is placed by JSON pointer
  result_set out;
  out.file = file;
  out.digest = hash_hex(bytes);
  if (how == reading::tables) {
    out.not_a_sweep = not_a_sweep(doc);
    if (!out.not_a_sweep.empty()) return out;
  }
  const json_fields r(file, /*strict=*/how != reading::all);
  if (!doc.is_object()) r.fail("", "expected a JSON object (a kk3tune result file)");
  out.schema_version = r.schema_version(doc);
  const json* kind = r.find(doc, "kind");
  if (!kind) r.fail("/kind", "missing");
  if (!kind->is_string()) r.fail("/kind", "expected a string");
  out.kind = kind->get<std::string>();
  if (out.kind != "time" && out.kind != "sweep") {
    r.fail("/kind", "unknown kind \"" + out.kind + "\" (expected \"time\" or \"sweep\")");
  }
  if (how == reading::whole && out.kind != "sweep")
    r.fail("/kind", "\"" + out.kind + "\": expected a sweep result");
  out.context = read_context(r, doc, how);
  if (out.kind == "time") {
    out.records = read_time_entries(r, doc);
    const json& subject = doc.at("subject");  // read_time_entries required it
    if (const json* seed = r.find(subject, "seed")) {
      if (!seed->is_number_unsigned()) r.fail("/subject/seed", "expected an unsigned integer");
      out.seed = seed->get<unsigned long long>();
    }
  } else {
    read_sweep(r, doc, out);
  }
  return out;
}

}  // namespace kk3::results
