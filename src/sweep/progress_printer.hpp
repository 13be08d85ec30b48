#pragma once
// The sweep's progress on stderr: a redrawn bar on a terminal, plain lines otherwise.
#include <chrono>
#include <cstddef>
#include <string>

#include "sweep/sweep.hpp"

namespace kk3::sweep {

/// "42 s", "3 min 05 s", "1 h 02 min": a duration for the progress line.
[[nodiscard]] std::string duration_text(double s);

/// A progress_fn that prints `what done/total (rate, ETA) current` for each event.
class progress_printer {
 public:
  explicit progress_printer(const char* what);
  void operator()(const progress_event& e);
  /// Plain lines only every n events (compiles come by the thousand).
  void plain_every(std::size_t n) { m_plain_every = n; }

 private:
  const char* m_what;
  bool m_tty;
  std::chrono::steady_clock::time_point m_start;
  std::size_t m_plain_every = 0;
};

}  // namespace kk3::sweep
