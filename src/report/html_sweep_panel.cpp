#include "report/html_sweep_panel.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace kk3::report::html::sweep_page {

bool unlaunchable(const results::record* r) {
  return r->status == results::status::unlaunchable;
}

std::string range_label(const select::range& r) {
  return r.min_tokens == r.max_tokens
             ? "T " + std::to_string(r.min_tokens)
             : "T " + std::to_string(r.min_tokens) + "–" + std::to_string(r.max_tokens);
}

std::string panel_title(const panel& p) {
  const std::string shape = families::shape_text(p.shape);
  return p.family + " · " + p.mode + (shape.empty() ? "" : " · " + shape);
}

std::vector<panel> make_panels(const results::result_set& doc) {
  std::vector<panel> panels;
  std::map<std::string, std::size_t> index;
  auto find = [&](const std::string& family, const std::string& mode, const families::dims& shape) {
    const std::string key = family + '\n' + mode + '\n' + families::shape_suffix(shape);
    auto [it, fresh] = index.emplace(key, panels.size());
    if (fresh) panels.push_back({family, mode, shape, {}, nullptr});
    return &panels[it->second];
  };
  for (const results::record& r : doc.records)
    find(r.family, r.mode, r.shape)->records.push_back(&r);
  for (const results::dispatch_entry& d : doc.dispatch)
    find(d.family, d.mode, d.shape)->dispatch = &d;
  return panels;
}

panel_model make_model(const panel& p) {
  panel_model m;
  std::set<long long> tokens;
  for (const results::record* r : p.records) {
    tokens.insert(r->tokens);
    m.variants[r->variant].push_back(r);
    m.at.emplace(std::make_pair(r->variant, r->tokens), r);
    if (r->reference && m.reference.empty()) m.reference = r->variant;
  }
  m.tokens.assign(tokens.begin(), tokens.end());
  for (auto& [id, recs] : m.variants) {
    std::stable_sort(
        recs.begin(), recs.end(),
        [](const results::record* a, const results::record* b) { return a->tokens < b->tokens; });
  }
  std::size_t next_color = 0;
  auto label = [&](const std::string& id) {
    if (id.empty() || m.color.count(id)) return;
    m.labelled.push_back(id);
    m.color[id] = id == m.reference ? k_reference_color : palette_color(next_color++);
  };
  label(m.reference);
  if (p.dispatch) {
    for (std::size_t i = 0; i < p.dispatch->ranges.size(); ++i) {
      const select::range& r = p.dispatch->ranges[i];
      label(r.winner);
      m.won[r.winner].push_back(range_label(r));
      for (long long t : m.tokens) {
        if (t >= r.min_tokens && t <= r.max_tokens) m.range_at[t] = i;
      }
    }
    for (const select::range& r : p.dispatch->ranges) {
      if (!r.runner_up) continue;
      label(*r.runner_up);
      m.ran_up[*r.runner_up].push_back(range_label(r));
    }
  }
  return m;
}

const results::record* record_at(const panel_model& m, const std::string& id, long long t) {
  auto it = m.at.find({id, t});
  return it == m.at.end() ? nullptr : it->second;
}

double speedup_over_reference(const panel_model& m, const select::range& r) {
  if (m.reference.empty()) return 0;
  double log_sum = 0;
  int n = 0;
  for (long long t : m.tokens) {
    if (t < r.min_tokens || t > r.max_tokens) continue;
    const results::record* w = record_at(m, r.winner, t);
    const results::record* ref = record_at(m, m.reference, t);
    if (!w || !ref || !timed(w) || !timed(ref)) continue;
    log_sum += std::log(ref->stats->median / w->stats->median);
    ++n;
  }
  return n ? std::exp(log_sum / n) : 0;
}

std::string join_labels(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

std::string series_title(const std::string& id, const std::vector<const results::record*>& recs,
                         const std::string& what) {
  std::string t = id + " (" + what + ")";
  for (const results::record* r : recs) {
    if (timed(r)) t += "\nT=" + std::to_string(r->tokens) + ": " + fmt_us(r->stats->median) + " µs";
  }
  return t;
}

}  // namespace kk3::report::html::sweep_page
