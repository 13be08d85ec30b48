#include "sweep/shipped_marks.hpp"

#include <algorithm>
#include <map>

#include "codegen/dispatch_tables.hpp"
#include "core/error.hpp"
#include "results/reader.hpp"

namespace kk3::sweep {

void mark_shipped(const results::result_set& committed, results::result_set& untimed) {
  const results::run_context& c = committed.context;
  results::shipped_tables& s = untimed.plan->shipped.emplace(results::shipped_tables{
      committed.file.string(), committed.digest, c.gpu.name, c.gpu.arch, c.git_revision, {}});
  const std::string tables_arch = codegen::table_arch(c.gpu.arch);
  for (const std::string& arch : untimed.plan->archs) {
    if (!tables_arch.empty() && codegen::table_arch(arch) == tables_arch)
      s.timed_archs.push_back(arch);
  }
  std::map<std::string, const results::dispatch_entry*> table_of;  // by shape_key
  for (const results::dispatch_entry& d : committed.dispatch)
    table_of[results::shape_key(d.family, d.mode, d.shape)] = &d;
  for (results::record& r : untimed.records) {
    const auto table = table_of.find(results::shape_key(r.family, r.mode, r.shape));
    if (table == table_of.end()) continue;
    for (results::arch_resources& a : r.resources) {
      a.ships.clear();
      if (std::find(s.timed_archs.begin(), s.timed_archs.end(), a.arch) == s.timed_archs.end())
        continue;
      for (const select::range& range : table->second->ranges) {
        if (range.winner == r.variant) a.ships.push_back({range.min_tokens, range.max_tokens});
      }
    }
  }
}

std::string mark_shipped(const std::filesystem::path& committed, results::result_set& untimed) {
  if (committed.empty()) return {};
  try {
    const results::result_set tables =
        results::read_result_set(committed, results::reading::tables);
    if (!tables.not_a_sweep.empty()) return committed.string() + ": " + tables.not_a_sweep;
    mark_shipped(tables, untimed);
    return {};
  } catch (const error& e) {  // a damaged committed file costs the marks, not the sweep
    return e.what();
  }
}

}  // namespace kk3::sweep
