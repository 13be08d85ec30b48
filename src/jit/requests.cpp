#include "jit/requests.hpp"

namespace kk3::jit {

compile_request make_request(const space::family_config& config, const space::mode& m,
                             const space::variant& v, const std::string& arch,
                             const std::filesystem::path& kernel_dir) {
  compile_request r;
  r.label = config.family + "/" + m.name + "/" + v.id + " @ " + arch;
  r.source = kernel_dir / config.source;
  r.name_expression = space::entry_expression(config, v);
  r.options = space::variant_defines(config, m, v);
  r.options.insert(r.options.end(), config.options.begin(), config.options.end());
  r.arch = arch;
  return r;
}

std::vector<compile_request> make_requests(const space::family_config& config,
                                           const std::vector<space::variant>& variants,
                                           const std::vector<std::string>& archs,
                                           const std::filesystem::path& kernel_dir) {
  std::vector<compile_request> out;
  for (const space::mode& m : config.modes) {
    for (const space::variant& v : variants) {
      for (const std::string& arch : archs)
        out.push_back(make_request(config, m, v, arch, kernel_dir));
    }
  }
  return out;
}

}  // namespace kk3::jit
