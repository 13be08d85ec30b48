#include "common.cuh"

#include <cuda_bf16.h>

#include <cstdio>
#include <cstring>

namespace example {
namespace {

/// A well-mixed 64-bit value of (seed, i): splitmix64's finaliser.
__device__ unsigned long long mix(unsigned long long seed, unsigned long long i) {
  unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void normal_bf16(unsigned short* out, long long n, unsigned long long seed, float mean,
                            float sd, long long period, long long groups, bool outliers) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const unsigned long long r = mix(seed, static_cast<unsigned long long>(i));
    // Box-Muller from two 24-bit uniforms in (0, 1].
    const float u1 = (static_cast<float>(r >> 40) + 1.0f) * 0x1p-24f;
    const float u2 = static_cast<float>((r >> 16) & 0xffffff) * 0x1p-24f;
    float x = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    x *= sd * (1.0f + 0.4f * static_cast<float>((i / period) % groups));
    if (outliers && (r & 0xffff) < 655) x *= 64.0f;
    out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(mean + x));
  }
}

__global__ void random_bits(unsigned char* out, std::size_t bytes, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < bytes;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = static_cast<unsigned char>(mix(seed, i) >> 56);
  }
}

constexpr unsigned k_fill_blocks = 1024, k_fill_threads = 256;

}  // namespace

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw cuda_error(std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                     ")");
}

int gpu_arch(std::string& name) {
  int devices = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 ||
      cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    return 0;
  }
  name = prop.name;
  return 10 * prop.major + prop.minor;
}

buffers::~buffers() {
  for (buffer& b : m_buffers) {
    cudaFree(b.ptr);
    cudaFree(b.pristine);
  }
}

unsigned long long buffers::add(const std::string& name, std::size_t bytes, role use) {
  buffer b;
  b.name = name;
  b.bytes = bytes;
  b.written = use != role::input;
  EXAMPLE_CHECK(cudaMalloc(&b.ptr, bytes));
  m_buffers.push_back(b);
  EXAMPLE_CHECK(cudaMemset(b.ptr, use == role::output ? 0xff : 0, bytes));
  return reinterpret_cast<unsigned long long>(b.ptr);
}

void buffers::start() {
  for (buffer& b : m_buffers) {
    if (!b.written) continue;
    EXAMPLE_CHECK(cudaMalloc(&b.pristine, b.bytes));
    EXAMPLE_CHECK(cudaMemcpy(b.pristine, b.ptr, b.bytes, cudaMemcpyDeviceToDevice));
  }
}

void buffers::restore(cudaStream_t stream) {
  for (const buffer& b : m_buffers) {
    if (b.written)
      EXAMPLE_CHECK(cudaMemcpyAsync(b.ptr, b.pristine, b.bytes, cudaMemcpyDeviceToDevice, stream));
  }
}

std::vector<std::vector<unsigned char>> buffers::written_bytes() const {
  std::vector<std::vector<unsigned char>> out;
  for (const buffer& b : m_buffers) {
    if (!b.written) continue;
    out.emplace_back(b.bytes);
    EXAMPLE_CHECK(cudaMemcpy(out.back().data(), b.ptr, b.bytes, cudaMemcpyDeviceToHost));
  }
  return out;
}

std::string buffers::difference(const std::vector<std::vector<unsigned char>>& a,
                                const std::vector<std::vector<unsigned char>>& b) const {
  std::size_t i = 0;
  for (const buffer& buf : m_buffers) {
    if (!buf.written) continue;
    const std::vector<unsigned char>& x = a[i];
    const std::vector<unsigned char>& y = b[i++];
    if (std::memcmp(x.data(), y.data(), x.size()) == 0) continue;
    std::size_t at = 0;
    while (x[at] == y[at]) ++at;
    char bytes[48];
    std::snprintf(bytes, sizeof bytes, "reference 0x%02x, variant 0x%02x", x[at], y[at]);
    return buf.name + " differs from byte " + std::to_string(at) + " on (" + bytes + ")";
  }
  return "";
}

void fill_bf16(unsigned long long ptr, long long n, unsigned long long seed, float mean, float sd,
               long long period, long long groups, bool outliers) {
  normal_bf16<<<k_fill_blocks, k_fill_threads>>>(reinterpret_cast<unsigned short*>(ptr), n, seed,
                                                 mean, sd, period, groups, outliers);
  EXAMPLE_CHECK(cudaGetLastError());
}

void fill_bits(unsigned long long ptr, std::size_t bytes, unsigned long long seed) {
  random_bits<<<k_fill_blocks, k_fill_threads>>>(reinterpret_cast<unsigned char*>(ptr), bytes,
                                                 seed);
  EXAMPLE_CHECK(cudaGetLastError());
}

void upload(unsigned long long ptr, const void* host, std::size_t bytes) {
  EXAMPLE_CHECK(cudaMemcpy(reinterpret_cast<void*>(ptr), host, bytes, cudaMemcpyHostToDevice));
}

}  // namespace example
