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
run_context read_context(const json_fields& r, const json& doc) {
  run_context c;
  const json& context = r.object(doc, "", "context");
  const std::string at = "/context";
  const std::string g = at + "/gpu";
  const json* gpu = r.strict() ? &r.object(context, at, "gpu") : r.find(context, "gpu");
  auto text = [&](const json& parent, const std::string& where, const char* key) {
    return r.strict() ? r.string(parent, where, key) : r.optional_string(parent, where, key);
  };
  if (gpu && !gpu->is_null()) {
    if (!gpu->is_object()) r.fail(g, "expected an object or null");
    c.gpu.name = text(*gpu, g, "name");
    c.gpu.arch = text(*gpu, g, "arch");
    device::parse_compute_capability(r.optional_string(*gpu, g, "compute_capability"), c.gpu);
    c.gpu.driver_version =
        device::parse_version_string(r.optional_string(*gpu, g, "driver_version"));
    c.gpu.sm_count = static_cast<int>(r.optional_integer(*gpu, g, "sm_count"));
    c.gpu.l2_bytes = r.optional_integer(*gpu, g, "l2_bytes");
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

// The plan block: timed or not, the token counts and selection rule, and the sharding fields
// (plan.digest, plan.shard: written since sharding, issue 15).
void read_plan(const json_fields& r, const json& doc, result_set& out) {
  const json* plan = r.find(doc, "plan");
  if (!plan) return;
  if (!plan->is_object()) r.fail("/plan", "expected an object");
  if (r.find(*plan, "timed")) out.timed = r.optional_boolean(*plan, "/plan", "timed");
  if (out.context.copy_ceiling_tb_s == 0)
    out.context.copy_ceiling_tb_s = r.optional_number(*plan, "/plan", "copy_ceiling_tb_s");
  plan_summary p;
  if (r.find(*plan, "tokens")) {
    const json& tokens = r.array(*plan, "/plan", "tokens");
    for (std::size_t i = 0; i < tokens.size(); ++i)
      p.tokens.push_back(r.integer_value(tokens[i], "/plan/tokens/" + std::to_string(i)));
  }
  for (auto [key, field] : {std::pair{"min_gain", &p.min_gain},
                            {"noise_sigmas", &p.noise_sigmas},
                            {"noise_floor", &p.noise_floor}}) {
    if (r.find(*plan, key)) *field = r.number(*plan, "/plan", key);
  }
  out.plan = std::move(p);
  out.plan_digest = r.optional_string(*plan, "/plan", "digest");
  const json* shard = r.find(*plan, "shard");
  if (!shard || shard->is_null()) return;
  if (!shard->is_object()) r.fail("/plan/shard", "expected null or an object");
  out.shard_index = r.integer(*shard, "/plan/shard", "index");
}

void read_sweep(const json_fields& r, const json& doc, result_set& out, reading how) {
  read_plan(r, doc, out);
  out.families = read_families(r, doc);
  if (how == reading::all) {
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
    return "an untimed sweep (compiled without a GPU): no tables";
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
  const json_fields r(file, /*strict=*/how == reading::tables);
  if (!doc.is_object()) r.fail("", "expected a JSON object (a kk3tune result file)");
  out.schema_version = r.schema_version(doc);
  const json* kind = r.find(doc, "kind");
  if (!kind) r.fail("/kind", "missing");
  if (!kind->is_string()) r.fail("/kind", "expected a string");
  out.kind = kind->get<std::string>();
  if (out.kind != "time" && out.kind != "sweep") {
    r.fail("/kind", "unknown kind \"" + out.kind + "\" (expected \"time\" or \"sweep\")");
  }
  out.context = read_context(r, doc);
  if (out.kind == "time") {
    out.records = read_time_entries(r, doc);
  } else {
    read_sweep(r, doc, out, how);
  }
  return out;
}

}  // namespace kk3::results
