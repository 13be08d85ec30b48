// Fuzzes the family config loader (configs/<family>.json) and the variant enumeration on what
// it accepts. kk3::error is the expected way to reject an input; any other exception, a crash
// or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "space/config.hpp"
#include "space/variant.hpp"

namespace {

/// Spaces larger than this are not enumerated: the product of the knob value counts grows
/// exponentially with the input, which would only measure the enumeration's speed.
constexpr double k_max_space = 10000;

double space_size(const kk3::space::family_config& config) {
  double size = 1;
  for (const auto& k : config.knobs) size *= static_cast<double>(k.values.size());
  for (const auto& k : config.test_knobs) size += static_cast<double>(k.values.size());
  return size;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kk3::fuzz::input_file file("family", data, size);
  try {
    const kk3::space::family_config config = kk3::space::load_family_config(file.path());
    if (space_size(config) > k_max_space) return 0;
    const auto variants = kk3::space::enumerate_variants(config, /*with_test_knobs=*/true);
    // The names and defines NVRTC would get, for a few variants in every mode.
    std::size_t shown = 0;
    for (const auto& v : variants) {
      if (++shown > 8) break;
      (void)kk3::space::entry_expression(config, v);
      for (const auto& m : config.modes) (void)kk3::space::variant_defines(config, m, v);
    }
  } catch (const kk3::error&) {
  }
  return 0;
}
