#pragma once
// The one exception type of kk3tune, and the exit codes it maps to.
#include <stdexcept>
#include <string>

namespace kk3 {

/// What went wrong, coarse enough to choose an exit code and a status.
enum class error_kind {
  usage,    ///< a bad flag or argument (exit 2)
  config,   ///< a bad configuration file or value (exit 2)
  io,       ///< a file that cannot be read or written (exit 2)
  input,    ///< an input file (a result, a baseline, a shard) that is corrupt or not what the
            ///< command reads: truncated or not JSON, bad gzip, a missing or mistyped field, a
            ///< time result where a sweep is needed, two inputs that do not go together (exit 2)
  compile,  ///< the compile environment: NVRTC, the CUDA include folder (exit 3); an arch NVRTC
            ///< does not know is a bad --arch value: usage (exit 2)
  device,   ///< no driver, no GPU, a failing driver call (exit 3)
  launch,   ///< a kernel launch or execution failure (exit 3)
  verify,   ///< a verification failure (exit 1)
};

/// Process exit codes, as documented in the README and SPEC.
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_failure = 1;  ///< a regression or verification failure
inline constexpr int k_exit_usage = 2;  ///< bad usage or input (usage, config, io and input errors)
inline constexpr int k_exit_environment = 3;  ///< device or compile environment problem

/// An error with a kind and a message that names the file, field, variant or call at fault.
class error : public std::runtime_error {
 public:
  error(error_kind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
  error_kind kind() const noexcept { return m_kind; }

 private:
  error_kind m_kind;
};

/// The exit code that an error of this kind ends the process with.
[[nodiscard]] int exit_code_for(error_kind kind) noexcept;

/// A short lower-case name for the kind ("config", "device", ...).
const char* to_string(error_kind kind) noexcept;

}  // namespace kk3
