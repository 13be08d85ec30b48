#pragma once
// The tables part of a dispatch header's text, and the helpers both parts use:
// dispatch_header.cpp writes the rest (provenance, knobs, modes, variants, launch settings).
#include <string>

#include "codegen/dispatch_header.hpp"

namespace kk3::codegen {

/// Knob values as "1, 4, 0", and as a braced tuple "{1, 4, 0}".
std::string values_text(const ordered_knobs& k);
std::string tuple_text(const ordered_knobs& k);

/// The name of table `t` of architecture `a`, e.g. "sm_90_bf16_heads16".
std::string table_name(const dispatch_model& m, const header_arch& a, const header_table& t);

/// select()'s shape parameters ("int heads, "), its arguments ("heads, "), and the names as
/// prose ("heads"; "none").
std::string shape_params(const dispatch_model& m);
std::string shape_args(const dispatch_model& m);
std::string shape_names(const dispatch_model& m);

/// The tables: struct range, select_status and selection, one constexpr array per architecture,
/// mode and shape (in detail) with each architecture's select_<arch>(), then struct table and
/// all_tables.
void tables(std::string& out, const dispatch_model& m);

/// is_tuned(), the two select_with_status() overloads and the two select() overloads (which
/// assert, in a debug build, that a table was found).
void selects(std::string& out, const dispatch_model& m);

}  // namespace kk3::codegen
