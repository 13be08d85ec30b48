#pragma once
// The host side of one call: named tensors with their bytes. A family makes a problem (random
// inputs from a seed), its CPU reference computes the outputs, and the verifier compares what
// the GPU wrote with it, tensor by tensor: bit by bit, or within SPEC 1.3's bound where the
// reference gives one.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kk3::families {

/// Element types, as stored (bf16 and fp8 as raw bits).
enum class dtype { bf16, fp8_e4m3, fp32, int64, u8 };
std::size_t dtype_bytes(dtype t);
const char* to_string(dtype t);

/// What a tensor is to the kernel.
enum class role {
  input,   ///< read only: must be bitwise unchanged afterwards
  output,  ///< written: poisoned before the launch, compared with the reference after
  inout,   ///< written in place (e.g. the KV cache): starts from its given bytes
};

/// One named tensor of a call.
struct tensor {
  std::string name;
  dtype type = dtype::u8;
  std::vector<long long> dims;  ///< the allocation's shape, padding included (for .npy files)
  role use = role::input;
  bool upstream = false;  ///< produced by the kernel launched just before (PDL hazard check)
  std::vector<std::uint8_t> bytes;
  /// A written bf16 tensor the CPU reference fills these for is held to SPEC 1.3's bound
  /// (verify/tolerance.hpp) instead of bit for bit: per element of the allocation, the float64
  /// result before rounding to bf16 (x) and the magnitude of the terms that sum to it, scaled
  /// as x is (m). Empty: compared bit for bit. (Variants are always compared with the reference
  /// variant bit for bit.)
  std::vector<double> exact_value;
  std::vector<double> term_magnitude;

  /// True when the CPU reference gave the bound's x and m (see exact_value).
  bool bounded() const { return !exact_value.empty(); }

  std::size_t elements() const { return bytes.size() / dtype_bytes(type); }
  /// The bytes as elements of T (uint16_t for bf16, std::uint8_t for e4m3, ...).
  template <class T>
  T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <class T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
};

/// All tensors of one call.
struct problem {
  /// A deque, so the reference add() returns stays valid while more tensors are added (a family
  /// fills a tensor it added before adding the next ones).
  std::deque<tensor> tensors;

  tensor& at(const std::string& name);
  const tensor& at(const std::string& name) const;
  /// Adds a zero-filled tensor and returns it (the reference stays valid until the problem goes).
  tensor& add(const std::string& name, dtype type, std::vector<long long> dims, role use,
              bool upstream = false);
};

/// Runs fill(rng, begin, end) over [0, count) in chunks of 2^20, in parallel; each chunk has its
/// own generator seeded from (seed, salt, chunk), so the values depend on the seed alone, not on
/// the number of threads. Used to draw large inputs quickly.
void parallel_fill(std::size_t count, unsigned long long seed, const std::string& salt,
                   const std::function<void(std::mt19937_64&, std::size_t, std::size_t)>& fill);

/// Standard normal values for large random inputs, about 20 times faster than
/// std::normal_distribution: each value is the normal quantile at the centre of one of 2^16
/// equal-probability cells, the cell drawn by 16 bits of the generator (four values a 64-bit draw).
/// The values depend on the generator's sequence alone. 2^16 levels are far finer than the bf16
/// inputs they become (8 significant bits); the tails stop at the last cell's centre, 4.3 sigma.
class fast_normal {
 public:
  explicit fast_normal(std::mt19937_64& rng) : m_rng(rng) {}
  float operator()() {
    if (m_left == 0) {
      m_bits = m_rng();
      m_left = 4;
    }
    const auto cell = static_cast<std::uint16_t>(m_bits);
    m_bits >>= 16;
    --m_left;
    return quantiles()[cell];
  }
  /// The 2^16 cell centres, ascending: Phi^-1((k + 0.5) / 2^16).
  static const float* quantiles();

 private:
  std::mt19937_64& m_rng;
  std::uint64_t m_bits = 0;
  int m_left = 0;
};

/// Runs body(i) for i in [0, count) on all cores (independent iterations only).
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body);

}  // namespace kk3::families
