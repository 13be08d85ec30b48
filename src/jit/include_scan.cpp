#include "jit/include_scan.hpp"

#include <regex>
#include <set>
#include <sstream>

#include "core/text.hpp"

namespace kk3::jit {
namespace fs = std::filesystem;

namespace {

struct scanner {
  const std::vector<fs::path>& search_dirs;
  std::set<std::string> visited;  // canonical paths, or "?name" for unfound includes
  std::vector<source_file> out;

  void visit(const fs::path& file, const std::string& name) {
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(file, ec).string();
    if (!visited.insert(canonical).second) return;
    std::string contents = read_file(file);
    out.push_back({name, contents, true});

    static const std::regex include_line(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
    std::istringstream lines(contents);
    std::string line;
    while (std::getline(lines, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const bool quoted = m[1].str() == "\"";
      const std::string included = m[2].str();
      fs::path resolved;
      if (quoted && fs::is_regular_file(file.parent_path() / included, ec)) {
        resolved = file.parent_path() / included;
      } else {
        for (const fs::path& dir : search_dirs) {
          if (fs::is_regular_file(dir / included, ec)) {
            resolved = dir / included;
            break;
          }
        }
      }
      if (resolved.empty()) {
        if (visited.insert("?" + included).second) out.push_back({included, {}, false});
      } else {
        visit(resolved, included);
      }
    }
  }
};

}  // namespace

std::vector<source_file> scan_includes(const fs::path& source,
                                       const std::vector<fs::path>& search_dirs) {
  scanner s{search_dirs, {}, {}};
  s.visit(source, source.filename().string());
  return std::move(s.out);
}

}  // namespace kk3::jit
