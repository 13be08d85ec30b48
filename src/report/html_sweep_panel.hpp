#pragma once
// Internal to the sweep page (html_sweep.cpp): a panel (one family x mode x model shape), the
// model its plots and tables are drawn from, and the helpers they share (html_sweep_panel.cpp).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/html_sections.hpp"

namespace kk3::report::html::sweep_page {

inline constexpr const char* k_reference_color = "#111111";

/// One family x mode x model shape: its records and its dispatch entry.
struct panel {
  std::string family, mode;
  families::dims shape;
  std::vector<const results::record*> records;
  const results::dispatch_entry* dispatch = nullptr;
};

/// What a panel's plots and tables are made of.
struct panel_model {
  std::vector<long long> tokens;                                        // measured, ascending
  std::map<std::string, std::vector<const results::record*>> variants;  // by id, tokens ascending
  std::map<std::pair<std::string, long long>, const results::record*> at;
  std::string reference;
  std::vector<std::string> labelled;  // reference, winners, runner-ups, in legend order
  std::map<std::string, std::string> color;
  std::map<std::string, std::vector<std::string>> won, ran_up;  // id -> range labels
  std::map<long long, std::size_t> range_at;                    // token -> dispatch range index
};

/// The GPU could not launch the variant at that count (or, for a finalist, at a verification
/// shape): not a failure, shown apart in grey.
bool unlaunchable(const results::record* r);
/// "T 64" or "T 96–256".
std::string range_label(const select::range& r);
/// "family · mode · shape".
std::string panel_title(const panel& p);
/// The panels of a result, in the order their records come.
std::vector<panel> make_panels(const results::result_set& doc);
/// The model of a panel: its token counts, variants, labelled variants with their colours.
panel_model make_model(const panel& p);
/// Variant `id`'s record at `t`, or none.
const results::record* record_at(const panel_model& m, const std::string& id, long long t);
/// The reference's median over the winner's at the range's measured counts (geometric mean).
double speedup_over_reference(const panel_model& m, const select::range& r);
/// "a, b, c".
std::string join_labels(const std::vector<std::string>& v);
/// A series' hover text: the variant, what it is, its time at each count.
std::string series_title(const std::string& id, const std::vector<const results::record*>& recs,
                         const std::string& what);

}  // namespace kk3::report::html::sweep_page
