#include "core/hash.hpp"

#include <xxhash.h>

#include <cstdint>
#include <cstdio>

namespace kk3 {

struct hasher::state {
  XXH3_state_t* s = XXH3_createState();
  ~state() { XXH3_freeState(s); }
};

hasher::hasher() : m_state(std::make_unique<state>()) {
  XXH3_128bits_reset(m_state->s);
}
hasher::~hasher() = default;
hasher::hasher(hasher&&) noexcept = default;
hasher& hasher::operator=(hasher&&) noexcept = default;

hasher& hasher::add(std::string_view field) {
  const std::uint64_t n = field.size();
  XXH3_128bits_update(m_state->s, &n, sizeof n);
  XXH3_128bits_update(m_state->s, field.data(), field.size());
  return *this;
}

std::string hasher::hex() const {
  const XXH128_hash_t h = XXH3_128bits_digest(m_state->s);
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

std::string hash_hex(std::string_view bytes) {
  return hasher().add(bytes).hex();
}

}  // namespace kk3
