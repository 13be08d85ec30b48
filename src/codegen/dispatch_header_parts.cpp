#include <algorithm>
#include <cstdio>

#include "codegen/dispatch_header_parts.hpp"
#include "codegen/header_text.hpp"
#include "core/text.hpp"

namespace kk3::codegen {
namespace {

// A range's comment names its token counts and its winner only: what the table is. Whether
// the incumbent was kept, the runner-up and its margin are figures of the run that set it (a
// re-sweep that keeps the winner gives others), so they stay in the result JSON.
std::string range_text(const header_range& r, bool last) {
  const std::string tokens =
      std::to_string(r.min_tokens) +
      (r.max_tokens != r.min_tokens ? ".." + std::to_string(r.max_tokens) : "");
  return fill(R"(    // T ${tokens}${above}: ${variant}
    {${max_tokens}, ${knobs}},
)",
              {{"tokens", tokens},
               {"above", last ? " and above" : ""},
               {"variant", comment_text(r.variant)},
               {"max_tokens", std::to_string(r.max_tokens)},
               {"knobs", tuple_text(r.knobs)}});
}

void arch_tables(std::string& out, const dispatch_model& m, const header_arch& a) {
  if (!a.tuned) {
    out += fill(
        R"(// ${arch}: no sweep result; the reference variant everywhere.
constexpr selection select_${arch}(mode, ${unnamed}long long) noexcept {
  return {reference_knobs, select_status::reference_untuned};
}

)",
        {{"arch", a.name},
         {"unnamed", join_each(m.shape_keys, "", [](const std::string&) { return "int, "; })}});
    return;
  }
  // Where the tables came from is said once, in the provenance block at the top.
  out += "// " + a.name + ": the tables of the sweep the provenance block names\n\n";
  std::string picks;
  for (const header_table& t : a.tables) {
    std::string ranges;
    for (std::size_t i = 0; i < t.ranges.size(); ++i)
      ranges += range_text(t.ranges[i], i + 1 == t.ranges.size());
    // ", heads 16" in the comment, " && heads == 16" in the pick.
    std::string shape_text, shape_test;
    for (std::size_t i = 0; i < m.shape_keys.size(); ++i) {
      shape_text += ", " + m.shape_keys[i] + " " + std::to_string(t.shape[i]);
      shape_test += " && " + m.shape_keys[i] + " == " + std::to_string(t.shape[i]);
    }
    const values v = {{"arch", a.name},
                      {"mode", m.modes[t.mode].identifier},
                      {"mode_name", comment_text(m.modes[t.mode].name)},
                      {"shape", shape_text},
                      {"table", table_name(m, a, t)},
                      {"ranges", ranges},
                      {"shape_test", shape_test}};
    out += fill(R"(// ${arch}, mode ${mode_name}${shape}
inline constexpr range ${table}[] = {
${ranges}};

)",
                v);
    picks += fill(
        "  if (m == mode::${mode}${shape_test}) return {pick(${table}, num_tokens), "
        "select_status::tuned};\n",
        v);
  }
  out += fill(
      R"(constexpr selection select_${arch}(mode m, ${shape_params}long long num_tokens) noexcept {
${picks}  return {reference_knobs, select_status::reference_no_table};
}

)",
      {{"arch", a.name}, {"shape_params", shape_params(m)}, {"picks", picks}});
}

// Every table as data, for a build that walks them (e.g. to test each range).
void table_list(std::string& out, const dispatch_model& m) {
  std::string entries;
  std::size_t count = 0;
  for (const header_arch& a : m.archs) {
    for (const header_table& t : a.tables) {
      std::string shape;
      for (const long long v : t.shape) shape += std::to_string(v) + ", ";
      entries += "    {" + std::to_string(a.sm) + ", mode::" + m.modes[t.mode].identifier + ", " +
                 shape + "detail::" + table_name(m, a, t) + ", " + std::to_string(t.ranges.size()) +
                 "},\n";
      ++count;
    }
  }
  const values v = {{"shape_fields", join_each(m.shape_keys, "",
                                               [](const std::string& k) {
                                                 return "  int " + k + ";  ///< the model shape\n";
                                               })},
                    {"entries", entries},
                    {"count", std::to_string(count)}};
  out += fill(
      R"(/// One table as data: the ranges select() picks from on an architecture, for a mode at a model
/// shape.
struct table {
  int sm_arch;  ///< the table architecture: 90 (sm_90), 100 (sm_100)
  mode m;
${shape_fields}  const range* ranges;      ///< ascending max_tokens; the last also takes every count above
  std::size_t range_count;  ///< how many
};

/// How many tables all_tables holds: those of every architecture with a sweep result.
inline constexpr std::size_t table_count = ${count};
)",
      v);
  out += count ? fill(R"(/// The tables, by architecture, then mode, then shape.
inline constexpr table all_tables[] = {
${entries}};

)",
                      v)
               : "/// No table: every select() returns the reference variant.\n"
                 "inline constexpr const table* all_tables = nullptr;\n\n";
}

}  // namespace

std::string values_text(const ordered_knobs& k) {
  return join_each(k, ", ", [](long long v) { return std::to_string(v); });
}

std::string tuple_text(const ordered_knobs& k) {
  return "{" + values_text(k) + "}";
}

std::string table_name(const dispatch_model& m, const header_arch& a, const header_table& t) {
  std::string name = a.name + "_" + m.modes[t.mode].identifier;
  for (std::size_t i = 0; i < m.shape_keys.size(); ++i)
    name += "_" + m.shape_keys[i] + std::to_string(t.shape[i]);
  return name;
}

std::string shape_params(const dispatch_model& m) {
  return join_each(m.shape_keys, "", [](const std::string& k) { return "int " + k + ", "; });
}
std::string shape_args(const dispatch_model& m) {
  return join_each(m.shape_keys, "", [](const std::string& k) { return k + ", "; });
}
std::string shape_names(const dispatch_model& m) {
  return m.shape_keys.empty() ? "none" : join(m.shape_keys, ", ");
}

void tables(std::string& out, const dispatch_model& m) {
  out +=
      R"(/// One token range of a table: up to max_tokens tokens (and beyond, for the last range), `k`.
struct range {
  long long max_tokens;
  knobs k;
};

/// Where select_with_status()'s knobs come from.
enum class select_status : int {
  tuned,               ///< a table of the architecture's sweep (its winner at the token count)
  reference_no_table,  ///< the architecture has tables, none for this mode and shape: the reference
  reference_untuned,   ///< the architecture has no sweep result: the reference
};

/// The status's name, e.g. "reference_no_table".
constexpr const char* status_name(select_status s) noexcept {
  if (s == select_status::tuned) return "tuned";
  if (s == select_status::reference_no_table) return "reference_no_table";
  if (s == select_status::reference_untuned) return "reference_untuned";
  return "";
}

/// The knobs select_with_status() gives, and where they come from.
struct selection {
  knobs k;
  select_status status;
};

namespace detail {

/// The first range with num_tokens <= max_tokens; the last range above them all.
template <std::size_t N>
constexpr knobs pick(const range (&table)[N], long long num_tokens) noexcept {
  for (std::size_t i = 0; i + 1 < N; ++i) {
    if (num_tokens <= table[i].max_tokens) return table[i].k;
  }
  return table[N - 1].k;
}

)";
  for (const header_arch& a : m.archs) arch_tables(out, m, a);
  out += "}  // namespace detail\n\n";
  table_list(out, m);
}

void selects(std::string& out, const dispatch_model& m) {
  // An sm_arch uses the tables of the highest table arch at or below it, else the lowest's.
  const header_arch& first = m.archs.front();
  std::string rule, tuned, by_arch;
  for (std::size_t i = m.archs.size(); i-- > 1;) {
    const header_arch& a = m.archs[i];
    const std::string sm = std::to_string(a.sm);
    rule += sm + " and above: " + a.name + "; ";
    tuned += "  if (sm_arch >= " + sm + ") return " + (a.tuned ? "true" : "false") + ";\n";
    by_arch += "  if (sm_arch >= " + sm + ") return detail::select_" + a.name + "(m, " +
               shape_args(m) + "num_tokens);\n";
  }
  out += fill(
      R"(/// Whether sm_arch's tables come from a sweep (false: they give the reference variant).
constexpr bool is_tuned(int sm_arch) noexcept {
${tuned}  return ${first_tuned};
}

/// The knobs to launch in mode `m` at model shape `${shape}` for `num_tokens` tokens, on ${first},
/// and where they come from: the first range with num_tokens <= its max_tokens, the last range
/// above them all (status tuned); the reference knobs for a mode or ${shape} without a table
/// (reference_no_table: a shape the sweep did not cover, or one that does not go with the mode)
/// or on an architecture without a sweep (reference_untuned).
constexpr selection select_with_status(mode m, ${params}long long num_tokens) noexcept {
  return detail::select_${first}(m, ${args}num_tokens);
}

/// select_with_status() on the architecture sm_arch = 10 * major + minor of the compute
/// capability (90 for sm_90 / sm_90a, 100 for sm_100a). Tables: ${rule}below: ${first}.
constexpr selection select_with_status(int sm_arch, mode m, ${params}long long num_tokens) noexcept {
${by_arch}  return detail::select_${first}(m, ${args}num_tokens);
}

namespace detail {

/// The knobs of `s`. A mode and shape without a table, on an architecture that has tables, is
/// a caller's mistake more often than not (a shape that does not go with the mode, a model the
/// sweep did not cover): in a debug build (NDEBUG not defined) it fails this assert instead of
/// giving the reference silently; with NDEBUG, the reference.
constexpr knobs checked(const selection& s) noexcept {
  assert(s.status != select_status::reference_no_table &&
         "kk3tune dispatch: no table for this mode and shape; select_with_status() gives the "
         "reference with status reference_no_table, without asserting");
  return s.k;
}

}  // namespace detail

/// The knobs select_with_status() gives, on ${first}. In a debug build (NDEBUG not defined) a mode
/// and shape without a table (status reference_no_table) fail an assert; with NDEBUG they give the
/// reference knobs. Call select_with_status() where such a shape is expected.
constexpr knobs select(mode m, ${params}long long num_tokens) noexcept {
  return detail::checked(select_with_status(m, ${args}num_tokens));
}

/// select() on the architecture sm_arch (as select_with_status(sm_arch, ...)), with the same
/// assert in a debug build.
constexpr knobs select(int sm_arch, mode m, ${params}long long num_tokens) noexcept {
  return detail::checked(select_with_status(sm_arch, m, ${args}num_tokens));
}

)",
      {{"tuned", tuned},
       {"first_tuned", first.tuned ? "true" : "false"},
       {"shape", shape_names(m)},
       {"params", shape_params(m)},
       {"args", shape_args(m)},
       {"first", first.name},
       {"rule", rule},
       {"by_arch", by_arch}});
}

}  // namespace kk3::codegen
