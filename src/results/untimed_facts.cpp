#include "results/untimed_facts.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace kk3::results {
namespace {

/// Record r's part of arch a's tally (t).
void add_compile(const record& r, const arch_resources& a, arch_tally& t) {
  ++t.compiled;
  t.target = a.target;
  t.at_limit += a.registers >= k_register_limit;
  t.spilling += a.spills();
  if (!a.target.empty()) t.occupancy.add(a.occupancy);
  t.shipped += !a.ships.empty();
  t.ranges += a.ships.size();
  for (const token_grid& g : r.grids) {
    const double w = a.waves(g.ctas);
    if (w < 0) continue;
    t.waves.add(w);
    if (a.ships_at(g.tokens)) t.shipped_waves.add(w);
  }
}

}  // namespace

void value_span::add(double v) {
  least = any ? std::min(least, v) : v;
  most = any ? std::max(most, v) : v;
  any = true;
}

std::vector<std::pair<std::string, arch_tally>> tally_by_arch(
    const std::vector<const record*>& records, const std::vector<std::string>& archs) {
  std::vector<std::pair<std::string, arch_tally>> out;
  for (const std::string& arch : archs) {
    arch_tally t;
    for (const record* r : records) {
      ++t.variants;
      const auto a = std::find_if(r->resources.begin(), r->resources.end(),
                                  [&](const arch_resources& x) { return x.arch == arch; });
      if (a != r->resources.end()) {
        add_compile(*r, *a, t);
      } else {
        t.failed += r->status == status::compile_failed;
      }
    }
    out.emplace_back(arch, std::move(t));
  }
  return out;
}

std::vector<shipped_spill> shipped_spills(const std::vector<record>& records) {
  std::vector<shipped_spill> out;
  for (const record& r : records) {
    for (const arch_resources& a : r.resources) {
      if (a.ships.empty() || !a.spills()) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const shipped_spill& s) {
        return s.family == r.family && s.variant == r.variant && s.arch == a.arch;
      });
      if (it == out.end()) {
        shipped_spill fresh;
        fresh.family = r.family;
        fresh.variant = r.variant;
        fresh.arch = a.arch;
        fresh.target = a.target;
        it = out.insert(out.end(), std::move(fresh));
      }
      it->store_bytes.add(std::max(a.spill_store_bytes, 0));
      it->load_bytes.add(std::max(a.spill_load_bytes, 0));
      for (const token_range& t : a.ships) it->ranges.push_back(r.mode + " " + range_text(t));
    }
  }
  return out;
}

std::string range_text(const token_range& r) {
  return ranges_text({r});
}

std::string ranges_text(const std::vector<token_range>& ranges) {
  std::vector<std::string> parts;
  for (const token_range& r : ranges) {
    parts.push_back(std::to_string(r.min_tokens) +
                    (r.max_tokens == r.min_tokens ? "" : "-" + std::to_string(r.max_tokens)));
  }
  return parts.empty() ? std::string() : "T " + join(parts, ", ");
}

std::string span_text(const value_span& s, std::string (*text)(double)) {
  const std::string least = text(s.least), most = text(s.most);
  return least == most ? least : least + " to " + most;
}

std::string waves_text(double waves) {
  return format_double(waves >= 100 ? "%.0f" : "%.3g", waves);
}

std::string bytes_text(double bytes) {
  return format_double("%.0f", bytes);
}

}  // namespace kk3::results
