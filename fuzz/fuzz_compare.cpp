// Fuzzes `kk3tune compare`: the input is two result files (BASE, then NEW) split at the first
// k_separator byte (or at the middle when there is none); when both read, they are compared and
// the comparison is rendered as text and markdown. Only kk3::error may escape.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "compare/comparison.hpp"
#include "compare/comparison_text.hpp"
#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "results/reader.hpp"

namespace {

/// A byte no JSON text holds: the seeds put it between the two files.
constexpr std::uint8_t k_separator = 0;

void compare_and_render(const kk3::results::result_set& base, const kk3::results::result_set& next,
                        bool allow_device_mismatch) {
  kk3::compare::compare_options options;
  options.allow_device_mismatch = allow_device_mismatch;
  const auto c = kk3::compare::compare_documents(base, next, options);
  (void)c.summary_line();
  (void)c.exit_code();
  for (const bool all : {false, true}) {
    kk3::compare::listing_options listing;
    listing.all = all;
    (void)kk3::compare::format_table(c, listing);
    (void)kk3::compare::format_markdown(c, listing);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* end = data + size;
  const std::uint8_t* split = std::find(data, end, k_separator);
  const std::uint8_t* second = split == end ? data + size / 2 : split + 1;
  if (split == end) split = second;
  kk3::fuzz::input_file base_file("base", data, static_cast<std::size_t>(split - data));
  kk3::fuzz::input_file next_file("new", second, static_cast<std::size_t>(end - second));
  try {
    const auto base = kk3::results::read_result_set(base_file.path());
    const auto next = kk3::results::read_result_set(next_file.path());
    try {
      compare_and_render(base, next, false);  // what `compare` does by default
    } catch (const kk3::error&) {
    }
    compare_and_render(base, next, true);  // --allow-device-mismatch: past the GPU check
  } catch (const kk3::error&) {
  }
  return 0;
}
