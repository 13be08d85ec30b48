#include "families/attn_res/attn_res.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "attn_res_launch.h"
#include "attn_res_params.h"
#include "core/error.hpp"
#include "families/numerics.hpp"
#include "families/tensor_workspace.hpp"

namespace kk3::families {
namespace {

struct ar_mode {
  long long hidden, nb;
  bool delta, out_norm, block_write;
};

ar_mode read_mode(const space::mode& m) {
  return {m.define_or("H", 7168), m.define_or("NB", 4), m.define_or("HAS_DELTA", 1) != 0,
          m.define_or("HAS_OUT_NORM", 1) != 0, m.define_or("BLOCK_WRITE", 0) != 0};
}

/// k, the block the block write stores p into (`block_write_idx`), from `d`: a shape's
/// dimensions or model_shape's `given`. NB (the block p completes) unless `d` names another;
/// -1 in a mode without a block write. Throws error(usage) for k < NB, and for a k given to a
/// mode without a block write.
long long write_index_of(const dims& d, const ar_mode& m, const std::string& mode) {
  constexpr long long k_absent = std::numeric_limits<long long>::min();
  const long long k = dim_or(d, attn_res::k_block_write_idx, k_absent);
  if (!m.block_write) {
    if (k == k_absent) return -1;
    throw error(error_kind::usage, "attn_res mode " + mode +
                                       " has no block write (BLOCK_WRITE=0): it takes no " +
                                       attn_res::k_block_write_idx);
  }
  if (k == k_absent) return m.nb;
  if (k < m.nb) {
    throw error(error_kind::usage,
                "attn_res mode " + mode + ": " + attn_res::k_block_write_idx +
                    " k=" + std::to_string(k) + " is below NB=" + std::to_string(m.nb) +
                    ": block k < NB is a source of the same call " +
                    "(p may go into block NB, the one it completes, or a later one)");
  }
  return k;
}

/// Element strides of the block sums: padded when the shape asks for strided inputs. With a
/// block write the tensor holds the blocks up to k, the one p is stored into (k = NB: one
/// block more, the one p completes; k = NB + 1: a spare block NB, which stays untouched).
struct ar_layout {
  long long block_stride, token_stride;
};

ar_layout layout_for(const shape& s, const ar_mode& m, long long write_index) {
  const long long pad = s.strided ? 1 : 0;
  const long long blocks = m.block_write ? write_index + 1 : m.nb;
  ar_layout l;
  l.block_stride = m.hidden + 64 * pad;
  l.token_stride = (blocks + pad) * l.block_stride + 128 * pad;  // strided: one unused block more
  if (l.token_stride == 0) l.token_stride = 1;
  return l;
}

}  // namespace

// attn_res runs between the sublayer's last GEMM (attention o_proj or the MLP's down_proj), which
// produces delta, and the next sublayer's first GEMM, which reads the normalised hidden state
// (out) (docs/objective.md). Both are persistent Hopper GEMMs: one CTA per SM holding all its
// shared memory, so nothing of attn_res runs beside the producer.
results::objective attn_res::default_objective() const {
  return chain_after_persistent_gemm(
      "sublayer's output GEMM producing delta (persistent: 1 CTA/SM, 3 warpgroups, all shared "
      "memory; triggers when done)",
      {"next sublayer's input GEMM (persistent: 1 CTA/SM, all shared memory; reads out)", 1, 384,
       -1, results::consumer_reads::outputs});
}

// The mean of the default plan's 1600 attn_res compiles (every variant of every mode, sm_90a and
// sm_100a) on a 2-core machine compiling on both: 0.13 s a compile at NB 0 to 0.49 s at NB 8,
// STAGE 1 the dearest (results/cpu/compile-rates-2026-12-05.txt).
std::optional<compile_rate> attn_res::default_compile_rate() const {
  return compile_rate{0.357,
                      "the mean of the default plan's compiles on a 2-core machine, "
                      "results/cpu/compile-rates-2026-12-05.txt"};
}

namespace {

kk3tune::kernels::attn_res_launch_mode launch_mode(const ar_mode& m) {
  return {m.hidden, m.nb, m.delta, m.out_norm};
}

}  // namespace

device::launch_config attn_res::geometry(const space::variant& v, const space::mode& mode,
                                         const shape& s) const {
  const kk3tune::kernels::attn_res_launch_knobs k = {
      static_cast<int>(v.value("B")),      static_cast<int>(v.value("GPW")),
      static_cast<int>(v.value("NC")),     static_cast<int>(v.value("STAGE")),
      static_cast<int>(v.value("STAGES")), static_cast<int>(v.value("TPC"))};
  return launch_config_of(
      kk3tune::kernels::attn_res_launch(k, launch_mode(read_mode(mode)), s.tokens));
}

std::string attn_res::launch_call(const space::mode& mode) const {
  const kk3tune::kernels::attn_res_launch_mode m = launch_mode(read_mode(mode));
  auto flag = [](bool b) { return b ? std::string("true") : std::string("false"); };
  return "kk3tune::kernels::attn_res_launch({k.B, k.GPW, k.NC, k.STAGE, k.STAGES, k.TPC}, {" +
         std::to_string(m.hidden) + ", " + std::to_string(m.nb) + ", " + flag(m.delta) + ", " +
         flag(m.out_norm) + "}, num_tokens)";
}

double attn_res::bytes_moved(const shape& s, const space::mode& mode) const {
  const ar_mode m = read_mode(mode);
  const double th = static_cast<double>(s.tokens) * static_cast<double>(m.hidden) * 2;
  double bytes = th * static_cast<double>(m.nb) + th;  // the block sums and prefix, read once
  if (m.delta) bytes += 2 * th;                        // delta read, prefix written back
  if (m.block_write) bytes += th;                      // p stored into block NB
  bytes += th;                                         // out
  bytes += static_cast<double>(m.hidden) * 2 * (m.out_norm ? 3 : 2);  // the weights
  return bytes;
}

shape attn_res::model_shape(long long tokens, const space::mode& mode, const dims& given) const {
  const ar_mode m = read_mode(mode);
  const long long nb = m.nb;
  const long long asked = dim_or(given, "blocks", nb);
  if (asked != nb) {
    throw error(error_kind::usage, "blocks: NB=" + std::to_string(asked) + " is not mode " +
                                       mode.name + "'s (NB=" + std::to_string(nb) +
                                       "); attn_res's NB is set by the mode");
  }
  const long long k = write_index_of(given, m, mode.name);
  shape s;
  s.tokens = tokens;
  s.set("blocks", nb);
  if (m.block_write && k != nb)
    s.set(k_block_write_idx, k);  // in the shape's name only where it is not NB
  return s;
}

std::vector<shape> attn_res::edge_shapes(const shape& model, const space::mode& mode) const {
  auto with = [&](long long t, bool strided) {
    shape s = model;
    s.tokens = t;
    s.strided = strided;
    return s;
  };
  std::vector<shape> edges = {with(1, false), with(2, true), with(7, false), with(64, true)};
  const ar_mode m = read_mode(mode);
  if (m.block_write) {
    // The block write into block NB + 1 with a spare block NB between: a kernel that stores p
    // into block NB whatever block_write_idx says changes the spare block and misses block k.
    shape spare = with(3, true);
    spare.set(k_block_write_idx, m.nb + 1);
    edges.push_back(spare);
  }
  return edges;
}

problem attn_res::make_problem(const shape& s, const space::mode& mode,
                               unsigned long long seed) const {
  const ar_mode m = read_mode(mode);
  if (s.tokens < 1) throw error(error_kind::usage, "attn_res: T must be at least 1");
  const ar_layout l = layout_for(s, m, write_index_of(s.model, m, mode.name));
  const long long T = s.tokens, Hd = m.hidden;
  // Normal values; each block n scaled by 0.5 + 0.4 n, so the logits differ and the softmax
  // is not flat. Drawn in parallel chunks (see parallel_fill) from fast_normal's table: the seed
  // alone decides them, and a sweep's largest inputs (1.2 GB at NB 8, T 8192) take well under a
  // second on 16 cores (std::normal_distribution: 4.6 core-seconds a GB; issue 43's sweep time).
  auto fill = [&](tensor& t, float mean, float sd, bool per_block_scale = false) {
    auto* v = t.data<std::uint16_t>();
    const auto token_stride = static_cast<std::size_t>(l.token_stride);
    const auto block_stride = static_cast<std::size_t>(l.block_stride);
    parallel_fill(
        t.elements(), seed, t.name, [&](std::mt19937_64& rng, std::size_t begin, std::size_t end) {
          fast_normal normal(rng);
          // Where i lies in its token's row: block n, element `within` of it (no
          // division in the loop).
          const std::size_t at = begin % token_stride;
          std::size_t n = at / block_stride, within = at % block_stride, left = token_stride - at;
          for (std::size_t i = begin; i < end; ++i) {
            const float scale = per_block_scale ? 0.5f + 0.4f * static_cast<float>(n) : sd;
            v[i] = f32_to_bf16_rn(mean + scale * normal());
            if (--left == 0) {
              left = token_stride;
              n = within = 0;
            } else if (++within == block_stride) {
              within = 0;
              ++n;
            }
          }
        });
  };
  problem p;
  fill(p.add("blocks", dtype::bf16, {T, l.token_stride}, m.block_write ? role::inout : role::input),
       0.0f, 1.0f, true);
  fill(p.add("prefix", dtype::bf16, {T, Hd}, m.delta ? role::inout : role::input, true), 0.0f,
       2.0f);
  if (m.delta) fill(p.add("delta", dtype::bf16, {T, Hd}, role::input, true), 0.0f, 0.5f);
  fill(p.add("rms_w", dtype::bf16, {Hd}, role::input), 1.0f, 0.1f);
  fill(p.add("res_w", dtype::bf16, {Hd}, role::input), 0.0f,
       3.0f / std::sqrt(static_cast<float>(Hd)));
  if (m.out_norm) fill(p.add("out_w", dtype::bf16, {Hd}, role::input), 1.0f, 0.1f);
  p.add("out", dtype::bf16, {T, Hd},
        role::output);  // held to SPEC 1.3's bound: reference() gives x and m
  return p;
}

void attn_res::reference(const shape& s, const space::mode& mode, problem& p) const {
  const ar_mode m = read_mode(mode);
  const long long k = write_index_of(s.model, m, mode.name);
  const ar_layout l = layout_for(s, m, k);
  const long long T = s.tokens, Hd = m.hidden, N = m.nb + 1;
  const auto* blocks = p.at("blocks").data<std::uint16_t>();
  auto* prefix = p.at("prefix").data<std::uint16_t>();
  auto* block_out = p.at("blocks").data<std::uint16_t>();  // the block write (p into block k)
  const auto* rms_w = p.at("rms_w").data<std::uint16_t>();
  const auto* res_w = p.at("res_w").data<std::uint16_t>();
  tensor& out_tensor = p.at("out");
  auto* out = out_tensor.data<std::uint16_t>();
  // SPEC 1.3's bound on out: per element the float64 result x and the magnitude m of the terms
  // that sum to it, scaled as x is (verify/tolerance.hpp).
  out_tensor.exact_value.assign(out_tensor.elements(), 0.0);
  out_tensor.term_magnitude.assign(out_tensor.elements(), 0.0);
  double* exact = out_tensor.exact_value.data();
  double* magnitude = out_tensor.term_magnitude.data();
  std::vector<double> q(static_cast<std::size_t>(Hd));
  for (long long i = 0; i < Hd; ++i)
    q[i] = static_cast<double>(bf16_to_f32(rms_w[i]) * bf16_to_f32(res_w[i]));  // fp32 product
  parallel_for(static_cast<std::size_t>(T), [&](std::size_t token) {  // tokens are independent
    const long long t = static_cast<long long>(token);
    std::vector<double> acc(static_cast<std::size_t>(Hd)), terms(static_cast<std::size_t>(Hd));
    std::uint16_t* pre = prefix + t * Hd;
    if (m.delta) {  // p = bf16(prefix + delta), exactly as the GPU rounds it, written back
      const auto* d = p.at("delta").data<std::uint16_t>() + t * Hd;
      for (long long i = 0; i < Hd; ++i)
        pre[i] = f32_to_bf16_rn(bf16_to_f32(pre[i]) + bf16_to_f32(d[i]));
    }
    if (m.block_write)
      std::copy(pre, pre + Hd, block_out + t * l.token_stride + k * l.block_stride);
    auto source = [&](long long n, long long i) -> double {
      return n < m.nb ? bf16_to_f32(blocks[t * l.token_stride + n * l.block_stride + i])
                      : bf16_to_f32(pre[i]);
    };
    std::vector<double> logit(static_cast<std::size_t>(N));
    double top = -INFINITY;
    for (long long n = 0; n < N; ++n) {
      double ss = 0, dot = 0;
      for (long long i = 0; i < Hd; ++i) {
        const double v = source(n, i);
        ss += v * v;
        dot += v * q[i];
      }
      logit[n] = dot / std::sqrt(ss / static_cast<double>(Hd) + static_cast<double>(k_eps));
      top = std::max(top, logit[n]);
    }
    double z = 0;
    for (double& x : logit) z += (x = std::exp(x - top));
    double wsum = 0;
    for (double& x : logit) wsum += (x /= z);
    double ss = 0;
    for (long long i = 0; i < Hd; ++i) {
      double a = 0, mag = 0;
      for (long long n = 0; n < N; ++n) {
        a += logit[n] * source(n, i);
        mag += logit[n] * std::fabs(source(n, i));
      }
      acc[i] = a;
      terms[i] = mag;
      ss += a * a;
    }
    const double r = 1.0 / std::sqrt(ss / static_cast<double>(Hd) +
                                     static_cast<double>(k_out_eps) * wsum * wsum);
    const auto* ow = m.out_norm ? p.at("out_w").data<std::uint16_t>() : nullptr;
    for (long long i = 0; i < Hd; ++i) {
      // x = acc * rsqrt(...) * out_w, or acc / s; m is the terms' magnitude scaled as x is.
      const double w = m.out_norm ? static_cast<double>(bf16_to_f32(ow[i])) : 0.0;
      exact[t * Hd + i] = m.out_norm ? acc[i] * r * w : acc[i] / wsum;
      magnitude[t * Hd + i] = m.out_norm ? terms[i] * r * std::fabs(w) : terms[i] / wsum;
      out[t * Hd + i] = f64_to_bf16_rn(exact[t * Hd + i]);
    }
  });
}

namespace {

class attn_res_workspace final : public tensor_workspace {
 public:
  attn_res_workspace(const shape& s, const ar_mode& m, long long write_index, const problem& p)
      : tensor_workspace(p) {
    const ar_layout l = layout_for(s, m, write_index);
    m_params.blocks = ptr("blocks");
    m_params.prefix = ptr("prefix");
    m_params.delta = m.delta ? ptr("delta") : 0;
    m_params.rms_w = ptr("rms_w");
    m_params.res_w = ptr("res_w");
    m_params.out_w = m.out_norm ? ptr("out_w") : 0;
    m_params.out = ptr("out");
    m_params.block_token_stride = l.token_stride;
    m_params.block_stride = l.block_stride;
    m_params.block_write_idx =
        write_index;  // k (NB unless the shape names another); -1 without a block write
    m_params.eps = attn_res::k_eps;
    m_params.out_eps = attn_res::k_out_eps;
    m_params.tokens = static_cast<int>(s.tokens);
  }
  void** args() override { return m_args; }

 private:
  kk3_attn_res_params m_params{};
  void* m_args[1] = {&m_params};
};

}  // namespace

std::unique_ptr<workspace> attn_res::make_workspace(const shape& s, const space::mode& m,
                                                    const problem& p) const {
  const ar_mode mode = read_mode(m);
  return std::make_unique<attn_res_workspace>(s, mode, write_index_of(s.model, mode, m.name), p);
}

const family& register_attn_res() {
  static const attn_res k_family;
  return k_family;
}

}  // namespace kk3::families
