#include "core/watch.hpp"

#include <time.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <sys/mman.h>
#include <unistd.h>

#include "core/error.hpp"

namespace kk3::watch {
namespace {

/// The shared layout. Text fields are written under a sequence counter (odd while writing).
struct layout {
  std::atomic<std::uint32_t> seq;
  std::atomic<std::uint32_t> active;
  std::atomic<std::uint64_t> since_ns;
  long long tokens;
  char shape[256];
  char variant[256];
  char fault_variant[256];
  char fault_reason[1024];
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<std::uint64_t>::is_always_lock_free,
              "the region is shared between processes");

layout* g_region = nullptr;
std::string g_faulting;  // this process's copy of the last variant left by an exception

std::uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for every process on the machine
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void copy(char* to, std::size_t size, const std::string& from) {
  const std::size_t n = std::min(size - 1, from.size());
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

template <class F>
void write(F&& f) {
  g_region->seq.fetch_add(1, std::memory_order_acq_rel);
  f(*g_region);
  g_region->seq.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace

bool attach() {
  const char* value = std::getenv(k_env);
  if (!value || !*value) return false;
  const int fd = std::atoi(value);
  void* p = ::mmap(nullptr, sizeof(layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    throw error(error_kind::device,
                std::string(k_env) + "=" + value +
                    ": cannot map the supervisor's region: " + std::strerror(errno));
  g_region = static_cast<layout*>(p);
  return true;
}

bool attached() {
  return g_region != nullptr;
}

void set_shape(const std::string& shape, long long tokens) {
  if (!g_region) return;
  write([&](layout& l) {
    copy(l.shape, sizeof l.shape, shape);
    l.tokens = tokens;
  });
}

scope::scope(const std::string& variant) : m_uncaught(std::uncaught_exceptions()) {
  g_faulting = variant;  // kept only if the scope is left by an exception (see ~scope)
  if (!g_region) return;
  write([&](layout& l) {
    copy(l.variant, sizeof l.variant, variant);
    l.since_ns.store(now_ns());
    l.active.store(1);
  });
}

scope::~scope() {
  const bool unwinding = std::uncaught_exceptions() > m_uncaught;
  if (!unwinding) g_faulting.clear();
  if (!g_region) return;
  write([&](layout& l) {
    l.active.store(0);
    if (!unwinding) l.variant[0] = '\0';
  });
}

std::string faulting_variant() {
  return g_faulting;
}

void report_fault(const std::string& variant, const std::string& reason) {
  if (!g_region) return;
  write([&](layout& l) {
    copy(l.fault_variant, sizeof l.fault_variant, variant);
    copy(l.fault_reason, sizeof l.fault_reason, reason);
  });
}

region::region() {
  m_fd = ::memfd_create("kk3tune-watch", 0);  // no CLOEXEC: the worker inherits it
  if (m_fd < 0 || ::ftruncate(m_fd, sizeof(layout)) != 0) {
    throw error(error_kind::device,
                std::string("cannot create the worker's shared region: ") + std::strerror(errno));
  }
  m_map = ::mmap(nullptr, sizeof(layout), PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, 0);
  if (m_map == MAP_FAILED)
    throw error(error_kind::device,
                std::string("cannot map the worker's shared region: ") + std::strerror(errno));
  reset();
}

region::~region() {
  if (m_map && m_map != MAP_FAILED) ::munmap(m_map, sizeof(layout));
  if (m_fd >= 0) ::close(m_fd);
}

void region::reset() {
  std::memset(m_map, 0, sizeof(layout));
}

snapshot region::read() const {
  const layout& l = *static_cast<const layout*>(m_map);
  snapshot s;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const std::uint32_t before = l.seq.load(std::memory_order_acquire);
    if (before % 2) continue;
    s.active = l.active.load() != 0;
    s.shape = l.shape;
    s.tokens = l.tokens;
    s.variant = l.variant;
    s.fault_variant = l.fault_variant;
    s.fault_reason = l.fault_reason;
    const std::uint64_t since = l.since_ns.load();
    s.active_s = s.active ? static_cast<double>(now_ns() - since) * 1e-9 : 0;
    if (l.seq.load(std::memory_order_acquire) == before) break;
  }
  return s;
}

}  // namespace kk3::watch
