#pragma once
// The one owner of compile-and-load: the sweep, the verifier and `time`/`profile` all turn a
// mode's variants into loaded CUfunctions here (compile through the cache, in parallel; load each
// image that compiled into the current CUDA context).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/handles.hpp"
#include "jit/batch.hpp"
#include "space/config.hpp"
#include "space/variant.hpp"

namespace kk3::jit {

/// One variant of a mode, compiled and (when it compiled) loaded.
struct loaded_kernel {
  const space::variant* variant = nullptr;
  compile_result compiled;
  std::unique_ptr<device::module> module;  ///< null when it did not compile
  CUfunction function = nullptr;           ///< null when it did not compile

  bool ok() const { return function != nullptr; }
};

/// Compile requests of `variants` in mode `m` for `arch`; `adjust` (if set) may add options to
/// each.
[[nodiscard]] std::vector<compile_request> mode_requests(
    const space::family_config& config, const space::mode& m,
    const std::vector<const space::variant*>& variants, const std::string& arch,
    const std::filesystem::path& kernel_dir,
    const std::function<void(const space::variant&, compile_request&)>& adjust = {});

/// Loads what compiled (in the current context), in the order of `variants`; what did not compile
/// keeps its result (log) and no function. `compiled` is in the same order as `variants`.
[[nodiscard]] std::vector<loaded_kernel> load_compiled(
    const std::vector<const space::variant*>& variants, std::vector<compile_result> compiled);

/// mode_requests, compile_all, load_compiled.
[[nodiscard]] std::vector<loaded_kernel> compile_and_load(
    const jit_engine& engine, const space::family_config& config, const space::mode& m,
    const std::vector<const space::variant*>& variants, const std::string& arch,
    const std::filesystem::path& kernel_dir);

}  // namespace kk3::jit
