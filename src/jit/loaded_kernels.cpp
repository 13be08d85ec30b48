#include "jit/loaded_kernels.hpp"

#include "jit/requests.hpp"

namespace kk3::jit {

std::vector<compile_request> mode_requests(
    const space::family_config& config, const space::mode& m,
    const std::vector<const space::variant*>& variants, const std::string& arch,
    const std::filesystem::path& kernel_dir,
    const std::function<void(const space::variant&, compile_request&)>& adjust) {
  std::vector<compile_request> requests;
  for (const space::variant* v : variants) {
    requests.push_back(make_request(config, m, *v, arch, kernel_dir));
    if (adjust) adjust(*v, requests.back());
  }
  return requests;
}

std::vector<loaded_kernel> load_compiled(const std::vector<const space::variant*>& variants,
                                         std::vector<compile_result> compiled) {
  std::vector<loaded_kernel> out(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    loaded_kernel& k = out[i];
    k.variant = variants[i];
    k.compiled = std::move(compiled[i]);
    if (!k.compiled.ok) continue;
    k.module = std::make_unique<device::module>(k.compiled.cubin, k.compiled.label);
    k.function = k.module->function(k.compiled.lowered_name);
  }
  return out;
}

std::vector<loaded_kernel> compile_and_load(const jit_engine& engine,
                                            const space::family_config& config,
                                            const space::mode& m,
                                            const std::vector<const space::variant*>& variants,
                                            const std::string& arch,
                                            const std::filesystem::path& kernel_dir) {
  return load_compiled(variants,
                       engine.compile_all(mode_requests(config, m, variants, arch, kernel_dir)));
}

}  // namespace kk3::jit
