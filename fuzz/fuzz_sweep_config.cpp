// Fuzzes the sweep plan loader (`kk3tune sweep --plan`, tests/fixtures/sweep/small-plan.json);
// it also accepts a family config, which it then reads as one. kk3::error is the expected way
// to reject an input; anything else is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "sweep/sweep_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kk3::fuzz::input_file file("plan", data, size);
  try {
    (void)kk3::sweep::load_sweep_config(file.path());
  } catch (const kk3::error&) {
  }
  return 0;
}
