#include "jit/cache_key.hpp"

#include "core/hash.hpp"

namespace kk3::jit {

namespace {
// Bump when the cached files or the way a key is formed change.
constexpr const char* k_key_format = "kk3tune-cache-v1";
}  // namespace

std::string cache_key(const compile_request& request, const std::vector<std::string>& options,
                      const std::vector<source_file>& sources, const std::string& nvrtc_version) {
  hasher h;
  h.add(k_key_format).add(nvrtc_version).add(request.arch).add(request.name_expression);
  std::vector<std::string> hashed;
  for (const std::string& option : options) {
    if (option.rfind("-I", 0) == 0 || option.rfind("--include-path", 0) == 0) continue;
    hashed.push_back(option);
  }
  h.add(std::to_string(hashed.size()));
  for (const std::string& option : hashed) h.add(option);
  h.add(std::to_string(sources.size()));
  for (const source_file& file : sources) {
    h.add(file.name).add(file.found ? "found" : "missing").add(file.contents);
  }
  return h.hex();
}

}  // namespace kk3::jit
