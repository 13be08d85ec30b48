// Fuzzes the result file reader (kind "time" and "sweep", results/schema/). kk3::error is the
// expected way to reject an input; anything else is a finding.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "results/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kk3::fuzz::input_file file("result", data, size);
  try {
    const auto document = kk3::results::read_result_set(file.path());
    for (const auto& record : document.records) (void)record.key();
  } catch (const kk3::error&) {
  }
  return 0;
}
