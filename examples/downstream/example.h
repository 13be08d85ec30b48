#pragma once
// What the example's translation units share, in plain C++ (main.cpp is compiled by the host
// compiler alone): one case is a family, a mode, a model shape and a token count; a mode's
// runner, defined in the CUDA translation unit of that mode, launches the selected variant and
// the reference on the same inputs and compares what they wrote.
#include <stdexcept>
#include <string>

namespace example {

/// What a runner found.
struct result {
  bool same = true;     ///< every written buffer bitwise equal to the reference's
  std::string variant;  ///< the selected variant's kk3tune id
  std::string detail;   ///< on a difference: the buffer and the first differing byte
};

/// A CUDA call failed (or a selected variant has no instantiation): the message names the call.
class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs one case of a mode: the family's model shape value (heads, blocks), the token count,
/// the seed of the random inputs. Throws cuda_error.
using runner = result (*)(int shape, long long tokens, unsigned long long seed);

/// Registers the runner of `family`'s `mode` (a static object in the mode's translation unit).
struct registration {
  registration(const char* family, const char* mode, runner r);
};

/// The runner registered for family and mode; nullptr when none.
runner find_runner(const std::string& family, const std::string& mode);

/// The GPU's architecture as 10 * major + minor (90 for an H100/H200), 0 without a GPU; `name`
/// gets its name. Calls no more than cudaGetDeviceCount and cudaGetDeviceProperties.
int gpu_arch(std::string& name);

}  // namespace example
