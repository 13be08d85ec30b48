#pragma once
// The text layout of a sweep result file: the document pretty-printed with a 2-space indent,
// except "records", which holds one record per line (tens of thousands of records stay
// readable, diffable and small). Shared by the sweep writer and `kk3tune merge`, so a merged
// file has the same bytes as one sweep that wrote the same document.
#include <string>

#include <nlohmann/json.hpp>

namespace kk3::report {

/// The text of `doc` (an object with a "records" array), ending with a newline.
std::string sweep_text(const nlohmann::ordered_json& doc);

}  // namespace kk3::report
