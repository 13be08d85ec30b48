#include "families/mla_decode_epilogue/mla_decode_epilogue.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "families/numerics.hpp"
#include "families/tensor_workspace.hpp"
#include "mla_decode_epilogue_launch.h"
#include "mla_decode_epilogue_params.h"

namespace kk3::families {
namespace {

bool is_fp8(const space::mode& m) {
  return m.define_or("MODE_FP8", 0) != 0;
}
bool has_rope(const space::mode& m) {
  return m.define_or("MODE_ROPE", 0) != 0;
}

long long heads_of(const shape& s) {
  return s.at("heads");
}
long long block_size_of(const shape& s) {
  return s.at("block_size");
}

}  // namespace

mla_layout mla_layout_for(const shape& s) {
  mla_layout l;
  const long long pad = s.strided ? 1 : 0;
  l.ql_head_stride = 512 + 64 * pad;
  l.ql_token_stride = heads_of(s) * l.ql_head_stride + 40 * pad;
  l.qpe_head_stride = 64 + 32 * pad;
  l.qpe_token_stride = heads_of(s) * l.qpe_head_stride + 8 * pad;
  l.kpe_row_stride = 64 + 16 * pad;
  l.num_blocks = (2 * s.tokens + block_size_of(s)) / block_size_of(s) + 1;
  return l;
}

// In a decode step the epilogue runs between the q up-projection GEMM, which writes ql_nope and
// q_pe, and the MLA attention kernel, which reads mqa_q and the KV cache (docs/objective.md).
// On Hopper both are persistent kernels of one CTA per SM with the most shared memory a CTA may
// have: while the GEMM runs, none of the epilogue's CTAs fits beside it, so a variant's work
// before its griddepcontrol.wait cannot hide under the GEMM, as it would under a small producer.
results::objective mla_decode_epilogue::default_objective() const {
  return chain_after_persistent_gemm(
      "q up-projection GEMM (persistent: 1 CTA/SM, 3 warpgroups, all shared memory; triggers when "
      "done)",
      {"MLA decode attention (1 CTA/SM, all shared memory; reads q and the KV cache)", 1, 256, -1,
       results::consumer_reads::written});
}

// The mean of the default plan's 104 mla_decode_epilogue compiles (its 13 variants a mode, sm_90a
// and sm_100a) on a 2-core machine compiling on both; the whole space's mean is 0.084 s
// (results/cpu/compile-rates-2026-12-05.txt).
std::optional<compile_rate> mla_decode_epilogue::default_compile_rate() const {
  return compile_rate{0.076,
                      "the mean of the default plan's compiles on a 2-core machine, "
                      "results/cpu/compile-rates-2026-12-05.txt"};
}

device::launch_config mla_decode_epilogue::geometry(const space::variant& v, const space::mode&,
                                                    const shape& s) const {
  const kk3tune::kernels::mla_decode_epilogue_launch_knobs k = {
      static_cast<int>(v.value("SPLIT")), static_cast<int>(v.value("ROWS_PER_WARP")),
      static_cast<int>(v.value("THREADS"))};
  return launch_config_of(kk3tune::kernels::mla_decode_epilogue_launch(k, heads_of(s), s.tokens));
}

std::string mla_decode_epilogue::launch_call(const space::mode&) const {
  return "kk3tune::kernels::mla_decode_epilogue_launch({k.SPLIT, k.ROWS_PER_WARP, k.THREADS}, "
         "heads, num_tokens)";
}

double mla_decode_epilogue::bytes_moved(const shape& s, const space::mode& m) const {
  const double T = static_cast<double>(s.tokens), H = static_cast<double>(heads_of(s));
  const double out_bytes = is_fp8(m) ? 1 : 2;
  double bytes = (T * H + T) * k_entry * 2;      // q and kv inputs
  bytes += T * 8;                                // slot mapping
  if (has_rope(m)) bytes += T * 8 + T * 64 * 4;  // positions and one cos/sin row per token
  if (is_fp8(m)) bytes += 8;                     // two scales
  bytes += (T * H + T) * k_entry * out_bytes;    // mqa_q and the inserted cache rows
  return bytes;
}

std::vector<dimension> mla_decode_epilogue::dimensions() const {
  return {{"heads", "H", 1, true, true}, {"block_size", "bs", 1, false, false}};
}

shape mla_decode_epilogue::model_shape(long long tokens, const space::mode&,
                                       const dims& given) const {
  shape s;
  s.tokens = tokens;
  s.set("heads", dim_or(given, "heads", k_default_heads));
  s.set("block_size", 64);
  return s;
}

std::vector<shape> mla_decode_epilogue::edge_shapes(const shape& model, const space::mode&) const {
  auto with = [&](long long t, long long h, long long block_size, bool strided) {
    shape s = model;
    s.tokens = t;
    s.set("heads", h);
    s.set("block_size", block_size);
    s.strided = strided;
    return s;
  };
  const long long heads = heads_of(model);
  return {with(1, heads, 64, false), with(64, heads, 64, false), with(65, heads, 64, false),
          with(5, 7, 64, false),     with(33, heads, 64, true),  with(20, 3, 17, true),
          with(2, 1, 1, false)};
}

problem mla_decode_epilogue::make_problem(const shape& s, const space::mode& m,
                                          unsigned long long seed) const {
  if (s.tokens < 1 || heads_of(s) < 1 || block_size_of(s) < 1) {
    throw error(error_kind::usage,
                "mla_decode_epilogue: T, H and the block size must be at least 1");
  }
  const mla_layout l = mla_layout_for(s);
  const long long T = s.tokens, H = heads_of(s);
  const bool fp8 = is_fp8(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  // Random bf16 values, a few of them large (to exercise fp8 saturation), never NaN; drawn in
  // parallel chunks whose values depend on the seed alone.
  auto fill_bf16 = [&](tensor& t) {
    auto* v = t.data<std::uint16_t>();
    parallel_fill(t.elements(), seed, t.name,
                  [&](std::mt19937_64& r, std::size_t begin, std::size_t end) {
                    std::normal_distribution<float> n(0.0f, 2.0f);
                    std::uniform_real_distribution<float> u(0.0f, 1.0f);
                    for (std::size_t i = begin; i < end; ++i) {
                      float x = n(r);
                      if (u(r) < 0.01f) x *= 64;
                      v[i] = f32_to_bf16_rn(x);
                    }
                  });
  };

  problem p;
  fill_bf16(p.add("ql_nope", dtype::bf16, {T, l.ql_token_stride}, role::input, true));
  fill_bf16(p.add("q_pe", dtype::bf16, {T, l.qpe_token_stride}, role::input, true));
  fill_bf16(p.add("kv_c", dtype::bf16, {T, k_latent}, role::input));
  fill_bf16(p.add("k_pe", dtype::bf16, {T, l.kpe_row_stride}, role::input));

  // Distinct random slots, about one token in eight skipped (-1).
  tensor& slots = p.add("slot_mapping", dtype::int64, {T}, role::input);
  std::vector<long long> all(static_cast<std::size_t>(l.num_blocks * block_size_of(s)));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  for (long long t = 0; t < T; ++t)
    slots.data<long long>()[t] = uniform(rng) < 0.125f ? -1 : all[static_cast<std::size_t>(t)];

  if (has_rope(m)) {
    tensor& pos = p.add("positions", dtype::int64, {T}, role::input);
    std::uniform_int_distribution<long long> any_pos(0, k_max_positions - 1);
    for (long long t = 0; t < T; ++t) pos.data<long long>()[t] = any_pos(rng);
    tensor& cs = p.add("cos_sin_cache", dtype::fp32, {k_max_positions, 64}, role::input);
    for (long long q = 0; q < k_max_positions; ++q) {
      for (int i = 0; i < 32; ++i) {
        const double angle = static_cast<double>(q) * std::pow(10000.0, -2.0 * i / 64.0);
        cs.data<float>()[q * 64 + i] = static_cast<float>(std::cos(angle));
        cs.data<float>()[q * 64 + 32 + i] = static_cast<float>(std::sin(angle));
      }
    }
  }
  if (fp8) {
    p.add("q_scale_inv", dtype::fp32, {1}, role::input).data<float>()[0] =
        16.0f + 48.0f * uniform(rng);
    p.add("cache_scale_inv", dtype::fp32, {1}, role::input).data<float>()[0] =
        16.0f + 48.0f * uniform(rng);
  }
  const dtype out = fp8 ? dtype::fp8_e4m3 : dtype::bf16;
  p.add("mqa_q", out, {T, H, k_entry}, role::output);
  tensor& cache = p.add("kv_cache", out, {l.num_blocks, block_size_of(s), k_entry}, role::inout);
  for (auto& b : cache.bytes) b = static_cast<std::uint8_t>(rng());  // background that must survive
  if (!fp8) {  // keep the bf16 background free of NaN patterns, like real data
    for (std::size_t i = 0; i < cache.elements(); ++i) cache.data<std::uint16_t>()[i] &= 0xbfffu;
  }
  return p;
}

void mla_decode_epilogue::reference(const shape& s, const space::mode& m, problem& p) const {
  const mla_layout l = mla_layout_for(s);
  const bool fp8 = is_fp8(m), rope = has_rope(m);
  const long long T = s.tokens, H = heads_of(s);
  const float q_scale = fp8 ? p.at("q_scale_inv").data<float>()[0] : 1.0f;
  const float cache_scale = fp8 ? p.at("cache_scale_inv").data<float>()[0] : 1.0f;

  // One 576-element row: copy, rotate the rope pairs in fp32, round to the output type.
  auto emit_row = [&](const std::uint16_t* nope, const std::uint16_t* pe, long long t, float scale,
                      std::uint8_t* out) {
    float v[k_entry];
    for (int i = 0; i < k_latent; ++i) v[i] = bf16_to_f32(nope[i]);
    for (int i = 0; i < k_rope; ++i) v[k_latent + i] = bf16_to_f32(pe[i]);
    if (rope) {
      const long long pos = p.at("positions").data<long long>()[t];
      const float* cs = p.at("cos_sin_cache").data<float>() + pos * 64;
      for (int i = 0; i < 32; ++i) {
        const float x = v[k_latent + 2 * i], y = v[k_latent + 2 * i + 1];
        const float c = cs[i], sn = cs[32 + i];
        const float xc = x * c, ys = y * sn, xs = x * sn, yc = y * c;  // each rounded (no FMA)
        v[k_latent + 2 * i] = xc - ys;
        v[k_latent + 2 * i + 1] = xs + yc;
      }
    }
    for (int i = 0; i < k_entry; ++i) {
      if (fp8) {
        out[i] = f32_to_e4m3_satfinite(v[i] * scale);
      } else {
        // Unrotated elements are exact copies (NaN payloads included); rotated ones round.
        const bool rotated = rope && i >= k_latent;
        const std::uint16_t b =
            rotated ? f32_to_bf16_rn(v[i]) : (i < k_latent ? nope[i] : pe[i - k_latent]);
        std::memcpy(out + 2 * i, &b, 2);
      }
    }
  };

  const std::size_t out_bytes = fp8 ? 1 : 2;
  const auto* ql = p.at("ql_nope").data<std::uint16_t>();
  const auto* qpe = p.at("q_pe").data<std::uint16_t>();
  auto* mqa = p.at("mqa_q").data<std::uint8_t>();
  for (long long t = 0; t < T; ++t) {
    for (long long h = 0; h < H; ++h) {
      emit_row(ql + t * l.ql_token_stride + h * l.ql_head_stride,
               qpe + t * l.qpe_token_stride + h * l.qpe_head_stride, t, q_scale,
               mqa + (t * H + h) * k_entry * out_bytes);
    }
  }
  const auto* kv = p.at("kv_c").data<std::uint16_t>();
  const auto* kpe = p.at("k_pe").data<std::uint16_t>();
  auto* cache = p.at("kv_cache").data<std::uint8_t>();
  const long long* slots = p.at("slot_mapping").data<long long>();
  for (long long t = 0; t < T; ++t) {
    if (slots[t] < 0) continue;
    emit_row(kv + t * k_latent, kpe + t * l.kpe_row_stride, t, cache_scale,
             cache + slots[t] * k_entry * out_bytes);
  }
}

namespace {

/// The device copies of a problem's tensors and the kernel's one argument, the params block.
class mla_workspace final : public tensor_workspace {
 public:
  mla_workspace(const shape& s, const problem& p) : tensor_workspace(p) {
    const mla_layout l = mla_layout_for(s);
    auto optional_ptr = [&](const char* name) -> unsigned long long {
      for (const tensor& t : p.tensors) {
        if (t.name == name) return ptr(name);
      }
      return 0;
    };
    m_params.ql_nope = ptr("ql_nope");
    m_params.q_pe = ptr("q_pe");
    m_params.kv_c = ptr("kv_c");
    m_params.k_pe = ptr("k_pe");
    m_params.slot_mapping = ptr("slot_mapping");
    m_params.positions = optional_ptr("positions");
    m_params.cos_sin_cache = optional_ptr("cos_sin_cache");
    m_params.q_scale_inv = optional_ptr("q_scale_inv");
    m_params.cache_scale_inv = optional_ptr("cache_scale_inv");
    m_params.mqa_q = ptr("mqa_q");
    m_params.kv_cache = ptr("kv_cache");
    m_params.ql_token_stride = l.ql_token_stride;
    m_params.ql_head_stride = l.ql_head_stride;
    m_params.qpe_token_stride = l.qpe_token_stride;
    m_params.qpe_head_stride = l.qpe_head_stride;
    m_params.kpe_row_stride = l.kpe_row_stride;
    m_params.tokens = static_cast<int>(s.tokens);
    m_params.heads = static_cast<int>(heads_of(s));
  }
  void** args() override { return m_args; }

 private:
  kk3_mla_params m_params{};
  void* m_args[1] = {&m_params};
};

}  // namespace

std::unique_ptr<workspace> mla_decode_epilogue::make_workspace(const shape& s, const space::mode&,
                                                               const problem& p) const {
  return std::make_unique<mla_workspace>(s, p);
}

const family& register_mla_decode_epilogue() {
  static const mla_decode_epilogue k_family;
  return k_family;
}

}  // namespace kk3::families
