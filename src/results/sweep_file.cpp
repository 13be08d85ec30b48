#include "results/sweep_file.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "results/json_fields.hpp"

namespace kk3::results {
namespace {

using json = nlohmann::ordered_json;

using fields = json_fields;

// plan.digest and plan.shard, where the file has them (written since sharding, issue 15).
void read_sharding(const fields& f, const json& doc, sweep_file& s) {
  const json* plan = f.find(doc, "plan");
  if (!plan || !plan->is_object()) return;
  s.plan_digest = f.optional_string(*plan, "/plan", "digest");
  const json* shard = f.find(*plan, "shard");
  if (!shard || shard->is_null()) return;
  if (!shard->is_object()) f.fail("/plan/shard", "expected null or an object");
  s.shard_index = f.integer(*shard, "/plan/shard", "index");
}

sweep_file read_sweep(const fields& f, const json& doc, const std::filesystem::path& file,
                      const std::string& bytes) {
  f.schema_version(doc);
  sweep_file s;
  s.file = file;
  s.digest = hash_hex(bytes);

  const json& context = f.object(doc, "", "context");
  const json& gpu = f.object(context, "/context", "gpu");
  s.gpu_name = f.string(gpu, "/context/gpu", "name");
  s.gpu_arch = f.string(gpu, "/context/gpu", "arch");
  s.tool_version = f.string(context, "/context", "tool_version");
  s.git_revision = f.string(context, "/context", "git_revision");
  s.utc_time = f.string(context, "/context", "utc_time");
  if (context.contains("nvrtc_version"))
    s.nvrtc_version = f.string(context, "/context", "nvrtc_version");

  read_sharding(f, doc, s);

  for (const auto& [name, family] : f.object(doc, "", "families").items()) {
    const std::string at = "/families/" + name;
    if (!family.is_object()) f.fail(at, "expected an object");
    sweep_family out;
    out.name = name;
    out.knobs = f.strings(family, at, "knobs");
    if (f.find(family, "shape_key")) {  // schema 1: one of "heads" and "blocks"
      out.shape_keys = {f.string(family, at, "shape_key")};
      out.shape_keys_field = "shape_key";
      if (out.shape_keys[0] != "heads" && out.shape_keys[0] != "blocks") {
        f.fail(at + "/shape_key", "expected \"heads\" or \"blocks\"");
      }
    } else {
      out.shape_keys = f.strings(family, at, "shape_keys");
      out.shape_keys_field = "shape_keys";
    }
    if (const json* o = f.find(family, "objective"))
      out.objective = f.objective(*o, at + "/objective");
    s.families.push_back(std::move(out));
  }

  // An untimed sweep (no GPU) has no dispatch tables.
  if (doc.contains("dispatch")) {
    const json& dispatch = f.array(doc, "", "dispatch");
    for (std::size_t i = 0; i < dispatch.size(); ++i) {
      s.dispatch.push_back(read_sweep_dispatch(f, dispatch[i], "/dispatch/" + std::to_string(i)));
    }
  }
  return s;
}

}  // namespace

result_file read_result_file(const std::filesystem::path& file) {
  const std::string bytes = read_file(file);
  const json doc = parse_json_text(file, bytes);  // a syntax error is placed by JSON pointer
  result_file out;
  if (!doc.is_object()) {
    out.not_a_sweep = "not a JSON object, not a sweep";
    return out;
  }
  const auto kind = doc.find("kind");
  if (kind == doc.end()) {
    out.not_a_sweep = "no \"kind\", not a sweep";
    return out;
  }
  if (!kind->is_string() || kind->get<std::string>() != "sweep") {
    out.not_a_sweep = "kind " + kind->dump() + ", not a sweep";
    return out;
  }
  const auto plan = doc.find("plan");
  if (plan != doc.end() && plan->is_object() && plan->value("timed", true) == false) {
    out.not_a_sweep = "an untimed sweep (compiled without a GPU): no tables";
    return out;
  }
  const fields f(file, /*strict=*/true);
  out.sweep = read_sweep(f, doc, file, bytes);
  return out;
}

namespace {

sweep_range read_range(const json_fields& f, const nlohmann::ordered_json& r,
                       const std::string& at) {
  if (!r.is_object()) f.fail(at, "expected an object");
  sweep_range out;
  out.at = at;
  out.min_tokens = f.integer(r, at, "min_tokens");
  out.max_tokens = f.integer(r, at, "max_tokens");
  out.variant = f.string(r, at, "variant");
  if (f.strict() || f.find(r, "knobs")) out.knobs = f.knobs(r, at, "knobs");
  if (f.strict()) {
    const auto& runner_up = f.member(r, at, "runner_up");
    if (!runner_up.is_string() && !runner_up.is_null())
      f.fail(at + "/runner_up", "expected a string or null");
    out.margin = f.number(r, at, "margin");
  } else {
    out.margin = f.optional_number(r, at, "margin");
  }
  out.runner_up = f.optional_string(r, at, "runner_up");
  out.incumbent_kept = f.optional_boolean(r, at, "incumbent_kept");
  return out;
}

}  // namespace

sweep_dispatch read_sweep_dispatch(const json_fields& f, const nlohmann::ordered_json& d,
                                   const std::string& at) {
  json_fields::entry_head head = f.head(d, at);
  sweep_dispatch out{at, std::move(head.family), std::move(head.mode), std::move(head.shape), {}};
  const auto& ranges = f.array(d, at, "ranges");
  if (f.strict() && ranges.empty()) f.fail(at + "/ranges", "expected at least one range");
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    out.ranges.push_back(read_range(f, ranges[i], at + "/ranges/" + std::to_string(i)));
  }
  return out;
}

}  // namespace kk3::results
