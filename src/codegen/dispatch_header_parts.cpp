#include <algorithm>
#include <cstdio>

#include "codegen/dispatch_header_parts.hpp"
#include "codegen/header_text.hpp"
#include "core/text.hpp"

namespace kk3::codegen {
namespace {

// "slower by 4.1%"; a negative margin (an incumbent kept against a challenger faster within
// the noise) reads "faster by 0.3%".
std::string margin_text(double margin) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s by %.1f%%", margin < 0 ? "faster" : "slower",
                (margin < 0 ? -margin : margin) * 100);
  return buf;
}

std::string range_text(const header_range& r, bool last) {
  const std::string tokens =
      std::to_string(r.min_tokens) +
      (r.max_tokens != r.min_tokens ? ".." + std::to_string(r.max_tokens) : "");
  return fill(R"(    // T ${tokens}${above}: ${variant}${kept}
    //   ${runner_up}
    {${max_tokens}, ${knobs}},
)",
              {{"tokens", tokens},
               {"above", last ? " and above" : ""},
               {"variant", comment_text(r.variant)},
               {"kept", r.incumbent_kept ? " (incumbent kept)" : ""},
               {"runner_up", r.runner_up.empty() ? "no runner-up"
                                                 : "runner-up " + comment_text(r.runner_up) + ", " +
                                                       margin_text(r.margin)},
               {"max_tokens", std::to_string(r.max_tokens)},
               {"knobs", tuple_text(r.knobs)}});
}

void arch_tables(std::string& out, const dispatch_model& m, const header_arch& a) {
  if (!a.tuned) {
    out += fill(R"(// ${arch}: no sweep result; the reference variant everywhere.
constexpr knobs select_${arch}(mode, int, long long) noexcept { return reference_knobs; }

)",
                {{"arch", a.name}});
    return;
  }
  out += "// " + a.name + ": " +
         join_each(a.sources, "; ",
                   [](const header_source& src) {
                     return comment_text(src.gpu_name) + ", sweep " + src.digest_kind + " digest " +
                            src.digest;
                   }) +
         "\n\n";
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
    picks += fill("  if (m == mode::${mode}${shape_test}) return pick(${table}, num_tokens);\n", v);
  }
  out += fill(
      R"(constexpr knobs select_${arch}(mode m, ${shape_params}long long num_tokens) noexcept {
${picks}  return reference_knobs;
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

std::string values_text(const knob_values& k) {
  return join_each(k, ", ", [](long long v) { return std::to_string(v); });
}

std::string tuple_text(const knob_values& k) {
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

/// The knobs to launch in mode `m` at model shape `${shape}` for `num_tokens` tokens, on ${first}:
/// the first range with num_tokens <= its max_tokens, the last range above them all, and the
/// reference knobs for a mode or ${shape} without a table.
constexpr knobs select(mode m, ${params}long long num_tokens) noexcept {
  return detail::select_${first}(m, ${args}num_tokens);
}

/// select() on the architecture sm_arch = 10 * major + minor of the compute capability (90 for
/// sm_90 / sm_90a, 100 for sm_100a). Tables: ${rule}below: ${first}.
constexpr knobs select(int sm_arch, mode m, ${params}long long num_tokens) noexcept {
${by_arch}  return detail::select_${first}(m, ${args}num_tokens);
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
