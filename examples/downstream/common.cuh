#pragma once
// The CUDA side the runners share: the device buffers of one case, which both launches start
// from and whose written bytes are compared, and random inputs drawn on the GPU.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "example.h"

namespace example {

/// Throws cuda_error naming `call` unless `e` is cudaSuccess.
void check(cudaError_t e, const char* call);
#define EXAMPLE_CHECK(call) ::example::check((call), #call)

/// The device buffers of one case. A written buffer (an output, or a tensor updated in place) is
/// put back to the bytes it held at start() before each run, and its bytes are what a run gives.
class buffers {
 public:
  buffers() = default;
  buffers(const buffers&) = delete;
  buffers& operator=(const buffers&) = delete;
  ~buffers();

  /// What the kernel does with a buffer: reads it, writes it, or updates it in place.
  enum class role { input, output, inout };
  /// A new buffer of `bytes`, its device address: zeroed, or for an output poisoned (0xff), so
  /// an element the variant fails to write differs from the reference's.
  unsigned long long add(const std::string& name, std::size_t bytes, role use);
  /// Copies of the written buffers as they are now (filled): what every run starts from.
  void start();
  /// Puts the written buffers back as start() found them and waits (the launch carries the PDL
  /// attribute, so nothing may be in flight before it), runs `launch` on `stream` (it returns
  /// the launch's error), waits, and returns the written buffers' bytes, in add() order.
  template <class Launch>
  std::vector<std::vector<unsigned char>> run(cudaStream_t stream, Launch launch) {
    restore(stream);
    EXAMPLE_CHECK(cudaStreamSynchronize(stream));
    EXAMPLE_CHECK(launch());
    EXAMPLE_CHECK(cudaStreamSynchronize(stream));
    return written_bytes();
  }
  /// "" when `a` and `b` (two run() results) are bitwise equal; else the first buffer that
  /// differs and its first differing byte.
  std::string difference(const std::vector<std::vector<unsigned char>>& a,
                         const std::vector<std::vector<unsigned char>>& b) const;

 private:
  struct buffer {
    std::string name;
    void* ptr = nullptr;
    void* pristine = nullptr;  ///< written buffers: the bytes at start()
    std::size_t bytes = 0;
    bool written = false;
  };
  void restore(cudaStream_t stream);
  std::vector<std::vector<unsigned char>> written_bytes() const;
  std::vector<buffer> m_buffers;
};

/// A CUDA stream, destroyed at the end of its scope.
class stream {
 public:
  stream() { EXAMPLE_CHECK(cudaStreamCreate(&m_stream)); }
  ~stream() { cudaStreamDestroy(m_stream); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  cudaStream_t get() const { return m_stream; }

 private:
  cudaStream_t m_stream = nullptr;
};

/// Runs the reference's knobs, then the selected variant's, each from the bytes `b` held at
/// start(), through `launch(knobs, stream)` (which returns the launch's error), and compares
/// what they wrote.
template <class Knobs, class Launch>
result against_reference(buffers& b, const Knobs& reference, const Knobs& selected,
                         const char* selected_id, Launch launch) {
  stream s;
  const auto expected = b.run(s.get(), [&] { return launch(reference, s.get()); });
  const auto got = b.run(s.get(), [&] { return launch(selected, s.get()); });
  result r;
  r.variant = selected_id;
  r.detail = b.difference(expected, got);
  r.same = r.detail.empty();
  return r;
}

/// Fills n bf16 values at `ptr` with mean + sd * N(0, 1), rounded to nearest even; element i is
/// scaled by 1 + 0.4 * ((i / period) % groups) (attn_res: each block its own scale), and with
/// `outliers` one element in about a hundred is 64 times larger. Drawn from `seed` alone.
void fill_bf16(unsigned long long ptr, long long n, unsigned long long seed, float mean, float sd,
               long long period = 1, long long groups = 1, bool outliers = false);
/// Fills `bytes` bytes at `ptr` with random bits drawn from `seed`.
void fill_bits(unsigned long long ptr, std::size_t bytes, unsigned long long seed);
/// Copies `bytes` bytes from the host to the device address `ptr`.
void upload(unsigned long long ptr, const void* host, std::size_t bytes);

/// a and b equal as C strings (for static_assert on the dispatch header's strings).
constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

}  // namespace example
