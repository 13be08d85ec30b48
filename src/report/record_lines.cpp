#include "report/record_lines.hpp"

#include "core/error.hpp"

namespace kk3::report {

std::string sweep_text(const nlohmann::ordered_json& doc) {
  const auto records = doc.find("records");
  if (records == doc.end() || !records->is_array())
    throw error(error_kind::usage, "sweep_text: the document has no \"records\" array");
  std::string lines = "[";
  for (std::size_t i = 0; i < records->size(); ++i)
    lines += (i ? ",\n    " : "\n    ") + (*records)[i].dump();
  lines += records->empty() ? "]" : "\n  ]";
  // The placeholder is searched for with its key at the top level's indent, so a string
  // "@records@" elsewhere (an argv word) is never taken for it.
  const std::string key = "\n  \"records\": ";
  const std::string placeholder = key + "\"@records@\"";
  nlohmann::ordered_json shell = doc;
  shell["records"] = "@records@";
  std::string text = shell.dump(2);
  text.replace(text.find(placeholder), placeholder.size(), key + lines);
  return text + "\n";
}

}  // namespace kk3::report
