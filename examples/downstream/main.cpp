// A downstream build of kk3tune's package: for every range of every sm_90 table of both
// families' generated dispatch headers, a token count at each end of the range (T at most
// k_max_tokens), select() picks the variant, and the mode's runner launches it and the family's
// reference variant through with_mode_variant() and launch() on the same inputs and compares
// every buffer they write, bit for bit (SPEC 1.3: a table that switches variants never changes
// the output).
//
// This file is plain C++ (the host compiler alone, no CUDA header): the generated headers work
// there too, and their launch settings are constant expressions (checked below). The runners live
// in one CUDA translation unit per mode, made by CMakeLists.txt from <family>_mode.cu.in.
//
// Without an sm_90 GPU it prints the cases it would run and "no GPU: built, not run" (exit 0).
// Exit 1: an output differs from the reference's; 3: a CUDA error (the message names the family,
// mode, shape, T and variant).
#include <kk3tune/dispatch/attn_res.h>
#include <kk3tune/dispatch/mla_decode_epilogue.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "example.h"

namespace ar = kk3tune::dispatch::attn_res;
namespace mla = kk3tune::dispatch::mla_decode_epilogue;

namespace {

// Launch settings at compile time. attn_res's reference (B = 1) at NB = 8, T = 5:
// a CTA of 7 warps per token, no cluster; rows in registers, no dynamic shared memory.
constexpr kk3tune::kernels::launch_settings k_ar_reference =
    ar::settings(ar::reference_knobs, ar::mode::common_nb8, 8, 5);
static_assert(k_ar_reference.grid.x == 5 && k_ar_reference.block.x == 224 &&
                  k_ar_reference.cluster.x == 1 && k_ar_reference.shared_bytes == 0 &&
                  k_ar_reference.pdl,
              "attn_res reference settings");
// B = 7, staged, NC = 0: a cluster of 7 CTAs per token, 4 warps each; a ring of all 10 rows
// (8 blocks, prefix, delta) of 4 slices.
constexpr kk3tune::kernels::launch_settings k_ar_b7 =
    ar::settings(ar::knobs{7, 1, 0, 1, 1, 1, 1, 1}, ar::mode::common_nb8, 8, 3);
static_assert(k_ar_b7.grid.x == 21 && k_ar_b7.block.x == 128 && k_ar_b7.cluster.x == 7 &&
                  k_ar_b7.cluster.y == 1 && k_ar_b7.shared_bytes == 10 * 4 * 512,
              "attn_res B = 7: a thread-block cluster");
// Whatever the table picks, its cluster is B CTAs.
constexpr ar::knobs k_ar_t1 = ar::select(ar::mode::common_nb8, 8, 1);
static_assert(ar::settings(k_ar_t1, ar::mode::common_nb8, 8, 1).cluster.x ==
                  static_cast<unsigned>(k_ar_t1.B),
              "attn_res: B CTAs per cluster");
// mla's reference at 16 heads, T = 1: 17 rows, one warp each, 4 warps per block of 128 threads.
constexpr kk3tune::kernels::launch_settings k_mla_reference =
    mla::settings(mla::reference_knobs, mla::mode::bf16, 16, 1);
static_assert(k_mla_reference.grid.x == 5 && k_mla_reference.block.x == 128 &&
                  k_mla_reference.cluster.x == 1 && k_mla_reference.shared_bytes == 0 &&
                  k_mla_reference.pdl,
              "mla reference settings");

constexpr long long k_max_tokens = 4096;  // memory and time: attn_res at NB = 8 moves 0.5 GB here
constexpr unsigned long long k_seed = 20261201;

/// One launch pair: the selected variant and the reference, at one token count.
struct test_case {
  const char* family;
  std::string mode;
  const char* shape_name;  ///< the family's key dimension
  int shape;
  long long tokens;
  std::string variant;  ///< what select() gives
};

/// What a table says of one token count: its mode, shape and selected variant.
struct described {
  std::string mode;
  int shape;
  std::string variant;
};

/// A case at each end of each range of each sm_90 table: the range's first token count and its
/// last (at most k_max_tokens; the last range's "and above" ends there).
template <class Table, class Describe>
void add_cases(const char* family, const char* shape_name, const Table* tables, std::size_t count,
               Describe describe, std::vector<test_case>& out) {
  for (std::size_t i = 0; i < count; ++i) {
    const Table& t = tables[i];
    if (t.sm_arch != 90) continue;
    long long first = 1;
    for (std::size_t r = 0; r < t.range_count; ++r) {
      auto add = [&](long long tokens) {
        const described d = describe(t, tokens);
        out.push_back({family, d.mode, shape_name, d.shape, tokens, d.variant});
      };
      const long long last = std::max(first, std::min(t.ranges[r].max_tokens, k_max_tokens));
      add(first);
      if (last != first) add(last);
      first = t.ranges[r].max_tokens + 1;
    }
  }
}

void print(const test_case& c, const char* verdict) {
  std::printf("%-19s %-10s %s %-3d T %-5lld %-52s %s\n", c.family, c.mode.c_str(), c.shape_name,
              c.shape, c.tokens, c.variant.c_str(), verdict);
}

}  // namespace

int main() {
  std::vector<test_case> cases;
  add_cases(
      "mla_decode_epilogue", "heads", mla::all_tables, mla::table_count,
      [](const mla::table& t, long long tokens) {
        return described{mla::mode_name(t.m), t.heads,
                         mla::variant_id(mla::select(t.m, t.heads, tokens))};
      },
      cases);
  add_cases(
      "attn_res", "blocks", ar::all_tables, ar::table_count,
      [](const ar::table& t, long long tokens) {
        return described{ar::mode_name(t.m), t.blocks,
                         ar::variant_id(ar::select(t.m, t.blocks, tokens))};
      },
      cases);
  std::string gpu;
  const int arch = example::gpu_arch(gpu);
  const bool run = arch == 90;
  std::printf(
      "%zu cases: every range of every sm_90 table, T at its ends (at most %lld); %s, seed %llu\n",
      cases.size(), k_max_tokens, run ? gpu.c_str() : "not run", k_seed);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const test_case& c = cases[i];
    if (!run) {
      print(c, "");
      continue;
    }
    const example::runner runner = example::find_runner(c.family, c.mode);
    if (!runner) {
      print(c, "NOT BUILT (no translation unit for the mode)");
      ++mismatches;
      continue;
    }
    try {
      const example::result r = runner(c.shape, c.tokens, k_seed + i);
      print(c, r.same ? "same" : ("DIFFERS: " + r.detail).c_str());
      mismatches += r.same ? 0 : 1;
    } catch (const example::cuda_error& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "CUDA error in %s mode %s (%s %d) at T=%lld, variant %s: %s\n", c.family,
                   c.mode.c_str(), c.shape_name, c.shape, c.tokens, c.variant.c_str(), e.what());
      return 3;
    }
  }
  if (!run) {
    if (arch != 0) {
      std::printf(
          "no sm_90 GPU (GPU 0 is %s, sm_%d; this build has sm_90a code only): built, not run\n",
          gpu.c_str(), arch);
    } else {
      std::printf("no GPU: built, not run\n");
    }
    return 0;
  }
  if (mismatches != 0) {
    std::printf("%zu of %zu cases differ from the reference variant\nMISMATCH\n", mismatches,
                cases.size());
    return 1;
  }
  std::printf("all %zu cases bitwise equal to the reference variant\nok\n", cases.size());
  return 0;
}
