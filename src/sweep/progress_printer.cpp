#include "sweep/progress_printer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <unistd.h>

namespace kk3::sweep {

std::string duration_text(double s) {
  const long long t = std::llround(std::max(0.0, s));
  char text[40];
  if (t < 60) {
    std::snprintf(text, sizeof text, "%lld s", t);
  } else if (t < 3600) {
    std::snprintf(text, sizeof text, "%lld min %02lld s", t / 60, t % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld h %02lld min", t / 3600, t / 60 % 60);
  }
  return text;
}

progress_printer::progress_printer(const char* what)
    : m_what(what), m_tty(::isatty(STDERR_FILENO)), m_start(std::chrono::steady_clock::now()) {}

void progress_printer::operator()(const progress_event& e) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  const double rate = elapsed > 0 ? e.done / elapsed : 0;
  // The sweep's own estimate where it has one (compiles: weighted by each family's cost).
  const double eta = e.eta_s ? *e.eta_s : rate > 0 ? (e.total - e.done) / rate : 0;
  char head[160];
  std::snprintf(head, sizeof head, "%s %zu/%zu (%.1f/s, ETA %s)", m_what, e.done, e.total, rate,
                duration_text(eta).c_str());
  if (m_tty) {
    const int width = 30;
    const int filled = e.total ? static_cast<int>(width * e.done / e.total) : 0;
    std::fprintf(stderr, "\r\033[K[%s%s] %s %.60s", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), head, e.current.c_str());
    if (e.done == e.total) std::fprintf(stderr, "\r\033[K");
  } else if (m_plain_every == 0 || e.done % m_plain_every == 0 || e.done == e.total) {
    std::fprintf(stderr, "%s: %s\n", head, e.current.c_str());
  }
  std::fflush(stderr);
}

}  // namespace kk3::sweep
