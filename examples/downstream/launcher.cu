// A downstream use of kk3tune's generated dispatch header: for each token count, select() picks
// the mla_decode_epilogue variant (mode bf16, 16 heads), with_variant() launches that
// instantiation of the installed kernel source, and the outputs are checked against a CPU
// computation. In mode bf16 the kernel is a pure copy: each q row is concat(ql_nope, q_pe), and
// the cache row of each token with a slot >= 0 is concat(kv_c, k_pe); every other cache row
// keeps its bytes.
//
// Without a GPU (or without an sm_90 one: this build has sm_90a code only) it prints the
// selection, says "no GPU: built, not run" and exits 0. Exit 1: a mismatch; 3: a CUDA error.
#include <kk3tune/dispatch/mla_decode_epilogue.h>

// The bf16 mode's macros, as mode_defines(mode::bf16) lists them (checked below).
#define MODE_FP8 0
#define MODE_ROPE 0
#include <kk3tune/kernels/mla_decode_epilogue.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace dispatch = kk3tune::dispatch::mla_decode_epilogue;

namespace {

constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
static_assert(same(dispatch::mode_defines(dispatch::mode::bf16), "MODE_FP8=0 MODE_ROPE=0"),
              "define the bf16 mode's macros as the dispatch header lists them");
static_assert(same(dispatch::compile_options, ""), "the variants need no extra compile options");

constexpr int k_heads = 16;
constexpr long long k_block_size = 64;
constexpr long long k_latent = 512, k_rope = 64, k_entry = 576;
constexpr long long k_token_counts[] = {1, 8, 64, 65, 512, 4096};
constexpr unsigned long long k_seed = 20261130;

void check_cuda(cudaError_t e, const char* call, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "launcher.cu:%d: %s: %s\n", line, call, cudaGetErrorString(e));
  std::exit(3);
}
#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)

/// A device allocation of n elements of T; freed at the end of its scope.
template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : m_n(n) { CHECK_CUDA(cudaMalloc(&m_ptr, n * sizeof(T))); }
  ~device_buffer() { cudaFree(m_ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  unsigned long long address() const { return reinterpret_cast<unsigned long long>(m_ptr); }
  void upload(const std::vector<T>& host) {
    CHECK_CUDA(cudaMemcpy(m_ptr, host.data(), m_n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(m_n);
    CHECK_CUDA(cudaMemcpy(host.data(), m_ptr, m_n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* m_ptr = nullptr;
  std::size_t m_n;
};

void print_selection(long long tokens, const dispatch::knobs& k) {
  std::printf(
      "T=%-5lld %s (SPLIT=%d UNROLL=%d EARLY_READS=%d CACHE_WAIT=%d ROWS_PER_WARP=%d "
      "TRIGGER_EARLY=%d THREADS=%d)\n",
      tokens, dispatch::variant_id(k), k.SPLIT, k.UNROLL, k.EARLY_READS, k.CACHE_WAIT,
      k.ROWS_PER_WARP, k.TRIGGER_EARLY, k.THREADS);
}

/// Runs the selected variant at T tokens and compares with the CPU; false on a mismatch.
bool run_and_check(long long tokens, std::mt19937_64& rng) {
  const long long T = tokens, H = k_heads;
  const long long num_blocks = (2 * T + k_block_size) / k_block_size + 1;
  auto random_bits = [&](std::size_t n) {
    std::vector<std::uint16_t> v(n);
    for (auto& x : v) x = static_cast<std::uint16_t>(rng());
    return v;
  };
  const std::vector<std::uint16_t> ql_nope = random_bits(T * H * k_latent),
                                   q_pe = random_bits(T * H * k_rope);
  const std::vector<std::uint16_t> kv_c = random_bits(T * k_latent), k_pe = random_bits(T * k_rope);
  const std::vector<std::uint16_t> background = random_bits(num_blocks * k_block_size * k_entry);
  // Distinct random slots; about one token in eight has none (-1).
  std::vector<long long> all_slots(num_blocks * k_block_size);
  std::iota(all_slots.begin(), all_slots.end(), 0);
  std::shuffle(all_slots.begin(), all_slots.end(), rng);
  std::vector<long long> slots(T);
  for (long long t = 0; t < T; ++t) slots[t] = rng() % 8 == 0 ? -1 : all_slots[t];

  device_buffer<std::uint16_t> d_ql(ql_nope.size()), d_qpe(q_pe.size()), d_kv(kv_c.size()),
      d_kpe(k_pe.size());
  device_buffer<std::uint16_t> d_mqa(T * H * k_entry), d_cache(background.size());
  device_buffer<long long> d_slots(slots.size());
  d_ql.upload(ql_nope);
  d_qpe.upload(q_pe);
  d_kv.upload(kv_c);
  d_kpe.upload(k_pe);
  d_cache.upload(background);
  d_slots.upload(slots);
  d_mqa.upload(std::vector<std::uint16_t>(T * H * k_entry,
                                          0xffff));  // poison: every element must be written

  kk3_mla_params p{};
  p.ql_nope = d_ql.address();
  p.q_pe = d_qpe.address();
  p.kv_c = d_kv.address();
  p.k_pe = d_kpe.address();
  p.slot_mapping = d_slots.address();
  p.mqa_q = d_mqa.address();
  p.kv_cache = d_cache.address();
  p.ql_head_stride = k_latent;
  p.ql_token_stride = H * k_latent;
  p.qpe_head_stride = k_rope;
  p.qpe_token_stride = H * k_rope;
  p.kpe_row_stride = k_rope;
  p.tokens = static_cast<int>(T);
  p.heads = static_cast<int>(H);

  const dispatch::knobs k = dispatch::select(dispatch::mode::bf16, k_heads, T);
  print_selection(T, k);
  const bool launched = dispatch::with_variant(k, [&](auto v) {
    using V = decltype(v);
    // Launch geometry (as kk3tune's host side computes it): T cache rows and T*H q rows, each
    // handled by SPLIT warps, ROWS_PER_WARP rows per warp group.
    const long long rows = T * (H + 1);
    const long long warps = (rows + V::ROWS_PER_WARP - 1) / V::ROWS_PER_WARP * V::SPLIT;
    const long long warps_per_block = V::THREADS / 32;
    const unsigned grid = static_cast<unsigned>((warps + warps_per_block - 1) / warps_per_block);
    mla_decode_epilogue<V::SPLIT, V::UNROLL, V::EARLY_READS, V::CACHE_WAIT, V::ROWS_PER_WARP,
                        V::TRIGGER_EARLY, V::THREADS><<<grid, V::THREADS>>>(p);
  });
  if (!launched) {
    std::printf("  no instantiation for the selected knobs\n");
    return false;
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());

  // The CPU side: concatenations and the cache insert.
  std::vector<std::uint16_t> mqa_expected(T * H * k_entry), cache_expected = background;
  for (long long t = 0; t < T; ++t) {
    for (long long h = 0; h < H; ++h) {
      std::uint16_t* row = &mqa_expected[(t * H + h) * k_entry];
      std::copy_n(&ql_nope[(t * H + h) * k_latent], k_latent, row);
      std::copy_n(&q_pe[(t * H + h) * k_rope], k_rope, row + k_latent);
    }
    if (slots[t] < 0) continue;
    std::uint16_t* row = &cache_expected[slots[t] * k_entry];
    std::copy_n(&kv_c[t * k_latent], k_latent, row);
    std::copy_n(&k_pe[t * k_rope], k_rope, row + k_latent);
  }
  auto compare = [](const char* name, const std::vector<std::uint16_t>& expected,
                    const std::vector<std::uint16_t>& got) {
    const auto at = std::mismatch(expected.begin(), expected.end(), got.begin());
    if (at.first == expected.end()) return true;
    std::printf("  %s mismatch at element %lld: expected 0x%04x, got 0x%04x\n", name,
                static_cast<long long>(at.first - expected.begin()), *at.first, *at.second);
    return false;
  };
  const bool q_ok = compare("mqa_q", mqa_expected, d_mqa.download());
  const bool cache_ok = compare("kv_cache", cache_expected, d_cache.download());
  return q_ok && cache_ok;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  cudaDeviceProp prop{};
  const bool have_gpu =
      e == cudaSuccess && devices > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  if (!have_gpu || prop.major != 9 || prop.minor != 0) {
    for (const long long T : k_token_counts)
      print_selection(T, dispatch::select(dispatch::mode::bf16, k_heads, T));
    if (have_gpu) {
      std::printf(
          "no sm_90 GPU (GPU 0 is sm_%d%d; this build has sm_90a code only): built, not run\n",
          prop.major, prop.minor);
    } else {
      std::printf("no GPU: built, not run\n");
    }
    return 0;
  }
  std::printf("%s, seed %llu, mode bf16, %d heads\n", prop.name, k_seed, k_heads);
  std::mt19937_64 rng(k_seed);
  bool ok = true;
  for (const long long T : k_token_counts) ok = run_and_check(T, rng) && ok;
  std::printf(ok ? "ok\n" : "MISMATCH\n");
  return ok ? 0 : 1;
}
