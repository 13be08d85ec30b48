#include "results/arch_resources.hpp"

#include <cmath>

#include "core/text.hpp"

namespace kk3::results {
namespace {

using json = nlohmann::ordered_json;

json count_or_null(long long v) {
  return v < 0 ? json(nullptr) : json(v);
}

// A count that may be null (unknown: -1).
int count_at(const json_fields& f, const json& o, const std::string& at, const char* key) {
  const json& v = f.member(o, at, key);
  if (v.is_null()) return -1;
  const long long n = f.integer_value(v, at + "/" + key);
  if (n < 0) f.fail(at + "/" + key, "expected a count (0 or more) or null");
  return static_cast<int>(n);
}

}  // namespace

json resources_json(const std::vector<arch_resources>& list) {
  json out = json::array();
  for (const arch_resources& r : list) {
    json e = {{"arch", r.arch},
              {"registers", count_or_null(r.registers)},
              {"spill_store_bytes", count_or_null(r.spill_store_bytes)},
              {"spill_load_bytes", count_or_null(r.spill_load_bytes)},
              {"shared_bytes", count_or_null(r.shared_bytes)},
              {"stack_bytes", count_or_null(r.stack_bytes)},
              {"threads_per_cta", r.threads_per_cta},
              {"dynamic_shared_bytes", r.dynamic_shared_bytes},
              {"cluster_ctas", r.cluster_ctas}};
    if (r.target.empty()) {
      e["target"] = nullptr;
    } else {
      e["target"] = {{"gpu", r.target},
                     {"sm_count", r.sm_count},
                     {"ctas_per_sm", r.ctas_per_sm},
                     {"warps_per_sm", r.warps_per_sm},
                     {"occupancy", std::round(r.occupancy * 1e6) / 1e6},
                     {"limiter", r.limiter}};
    }
    if (!r.ships.empty()) {  // where the committed tables choose it (plan.shipped)
      json ships = json::array();
      for (const token_range& t : r.ships)
        ships.push_back({{"min_tokens", t.min_tokens}, {"max_tokens", t.max_tokens}});
      e["ships"] = std::move(ships);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<arch_resources> read_resources(const json_fields& f, const json& v,
                                           const std::string& at) {
  if (!v.is_array()) f.fail(at, "expected an array");
  std::vector<arch_resources> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string a = at + "/" + std::to_string(i);
    const json& e = v[i];
    if (!e.is_object()) f.fail(a, "expected an object");
    arch_resources r;
    r.arch = f.string(e, a, "arch");
    r.registers = count_at(f, e, a, "registers");
    r.spill_store_bytes = count_at(f, e, a, "spill_store_bytes");
    r.spill_load_bytes = count_at(f, e, a, "spill_load_bytes");
    r.shared_bytes = count_at(f, e, a, "shared_bytes");
    r.stack_bytes = count_at(f, e, a, "stack_bytes");
    r.threads_per_cta = static_cast<int>(f.integer(e, a, "threads_per_cta"));
    r.dynamic_shared_bytes = f.integer(e, a, "dynamic_shared_bytes");
    r.cluster_ctas = static_cast<int>(f.integer(e, a, "cluster_ctas"));
    const json& t = f.member(e, a, "target");
    if (!t.is_null()) {
      if (!t.is_object()) f.fail(a + "/target", "expected an object or null");
      const std::string ta = a + "/target";
      r.target = f.string(t, ta, "gpu");
      r.sm_count = static_cast<int>(f.integer(t, ta, "sm_count"));
      r.ctas_per_sm = static_cast<int>(f.integer(t, ta, "ctas_per_sm"));
      r.warps_per_sm = static_cast<int>(f.integer(t, ta, "warps_per_sm"));
      r.occupancy = f.number(t, ta, "occupancy");
      r.limiter = f.string(t, ta, "limiter");
    }
    if (const json* ships = f.find(e, "ships")) {
      if (!ships->is_array()) f.fail(a + "/ships", "expected an array");
      for (std::size_t k = 0; k < ships->size(); ++k) {
        const std::string sa = a + "/ships/" + std::to_string(k);
        const json& range = (*ships)[k];
        if (!range.is_object()) f.fail(sa, "expected an object");
        const token_range t{f.integer(range, sa, "min_tokens"), f.integer(range, sa, "max_tokens")};
        if (t.min_tokens < 1 || t.max_tokens < t.min_tokens)
          f.fail(sa, "expected 1 <= min_tokens <= max_tokens");
        r.ships.push_back(t);
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

json grids_json(const std::vector<token_grid>& grids) {
  json out = json::object();
  for (const token_grid& g : grids) out[std::to_string(g.tokens)] = g.ctas;
  return out;
}

std::vector<token_grid> read_grids(const json_fields& f, const json& v, const std::string& at) {
  if (!v.is_object()) f.fail(at, "expected an object of token count -> CTAs");
  std::vector<token_grid> out;
  for (const auto& [key, value] : v.items()) {
    const std::string a = at + "/" + json_pointer_token(key);
    const std::optional<long long> tokens = parse_integer(key);
    if (!tokens || *tokens < 1) f.fail(a, "expected a token count (1 or more)");
    token_grid g;
    g.tokens = *tokens;
    if (!out.empty() && g.tokens <= out.back().tokens) f.fail(a, "the token counts must ascend");
    g.ctas = f.integer_value(value, a);
    if (g.ctas < 0) f.fail(a, "expected a count of CTAs (0 or more)");
    out.push_back(g);
  }
  return out;
}

}  // namespace kk3::results
