#pragma once
// Content hashing for cache keys and result digests (xxHash's XXH3-128 from Debian's libxxhash).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace kk3 {

/// Incremental 128-bit hash. Each field is length-prefixed, so ("ab","c") and ("a","bc") differ.
class hasher {
 public:
  hasher();
  ~hasher();
  hasher(hasher&&) noexcept;
  hasher& operator=(hasher&&) noexcept;
  hasher(const hasher&) = delete;
  hasher& operator=(const hasher&) = delete;

  /// Adds one field (its length, then its bytes).
  hasher& add(std::string_view field);
  /// The digest so far, as 32 lower-case hex digits.
  std::string hex() const;

 private:
  struct state;
  std::unique_ptr<state> m_state;
};

/// The 32-hex-digit digest of one byte string.
[[nodiscard]] std::string hash_hex(std::string_view bytes);

}  // namespace kk3
