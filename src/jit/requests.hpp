#pragma once
// Turns a family's variants into compile requests: one per mode, variant and arch.
#include <filesystem>
#include <string>
#include <vector>

#include "jit/compile_types.hpp"
#include "space/config.hpp"
#include "space/variant.hpp"

namespace kk3::jit {

/// The request for one variant in one mode for one arch.
[[nodiscard]] compile_request make_request(const space::family_config& config, const space::mode& m,
                                           const space::variant& v, const std::string& arch,
                                           const std::filesystem::path& kernel_dir);

/// Requests for every mode x variant x arch, in that nesting order.
[[nodiscard]] std::vector<compile_request> make_requests(
    const space::family_config& config, const std::vector<space::variant>& variants,
    const std::vector<std::string>& archs, const std::filesystem::path& kernel_dir);

}  // namespace kk3::jit
