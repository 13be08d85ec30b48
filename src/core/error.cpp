#include "core/error.hpp"

namespace kk3 {

int exit_code_for(error_kind kind) noexcept {
  switch (kind) {
    case error_kind::usage:
    case error_kind::config:
    case error_kind::io:
    case error_kind::input:
      return k_exit_usage;
    case error_kind::compile:
    case error_kind::device:
    case error_kind::launch:
      return k_exit_environment;
    case error_kind::verify:
      return k_exit_failure;
  }
  return k_exit_failure;
}

const char* to_string(error_kind kind) noexcept {
  switch (kind) {
    case error_kind::usage:
      return "usage";
    case error_kind::config:
      return "config";
    case error_kind::io:
      return "io";
    case error_kind::input:
      return "input";
    case error_kind::compile:
      return "compile";
    case error_kind::device:
      return "device";
    case error_kind::launch:
      return "launch";
    case error_kind::verify:
      return "verify";
  }
  return "unknown";
}

}  // namespace kk3
