// CPU experiment behind attn_res's arithmetic (issue 14): how far from the float64 reference
// (SPEC 1.2) does the output land with (a) a plain fp32 kernel with a fixed reduction order and
// (b) the arithmetic of kernels/attn_res.cuh (float64 unit sums and trees, unnormalised softmax
// in float64, an fp32 mix with a float64 fallback where the sources cancel, fp32 output)?
// Data as the verifier draws it (src/families/attn_res/attn_res.cpp: normal values, block n
// scaled by 0.5 + 0.4 n, prefix sd 2, delta sd 0.5, weights around 1 and 3/sqrt(H)).
//   kk3_attn_res_precision [T] [seeds]     prints, per case and arithmetic, the bf16-ulp histogram
// No GPU; IEEE float and double arithmetic with explicit fused multiply-adds (std::fma), so
// the rounding is the kernel's wherever the kernel's order is emulated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

float bf(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint16_t rn(float f) {  // round to nearest even (finite inputs)
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<std::uint16_t>(u >> 16);
}
std::uint16_t rn64(double d) {  // once, from double
  if (d == 0) return std::signbit(d) ? 0x8000 : 0;
  int e;
  const double m = std::frexp(std::fabs(d), &e);
  const float f = static_cast<float>(std::ldexp(std::nearbyint(std::ldexp(m, 8)), e - 8));
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>((u >> 16) | (d < 0 ? 0x8000 : 0));
}
int ordered(std::uint16_t b) { return b & 0x8000 ? -static_cast<int>(b & 0x7fff) : static_cast<int>(b); }

template <class T>
T butterfly(std::vector<T> v) {  // the 32-lane butterfly: pairs (l, l ^ 16) first
  for (int o = 16; o >= 1; o /= 2) {
    std::vector<T> w(32);
    for (int l = 0; l < 32; ++l) w[l] = v[l] + v[l ^ o];
    v = w;
  }
  return v[0];
}

struct histogram {
  long counts[8] = {};
  long total = 0;
  void add(std::uint16_t want, std::uint16_t got) {
    ++counts[std::min(std::abs(ordered(want) - ordered(got)), 7)];
    ++total;
  }
};

void run_case(int nb, bool delta, bool norm, int tokens, int seed, histogram& fp32, histogram& v2) {
  const int hd = 7168, n_src = nb + 1, slices = hd / 256;
  std::mt19937_64 rng(static_cast<unsigned long long>(seed) * 1000 + static_cast<unsigned long long>(nb));
  std::normal_distribution<float> nd(0, 1);
  std::vector<std::uint16_t> blocks(static_cast<std::size_t>(tokens) * nb * hd), prefix(static_cast<std::size_t>(tokens) * hd),
      dl(static_cast<std::size_t>(tokens) * hd), rw(hd), qw(hd), ow(hd);
  for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = rn((0.5f + 0.4f * static_cast<float>((i / hd) % nb)) * nd(rng));
  for (auto& x : prefix) x = rn(2 * nd(rng));
  for (auto& x : dl) x = rn(0.5f * nd(rng));
  for (auto& x : rw) x = rn(1 + 0.1f * nd(rng));
  for (auto& x : qw) x = rn(3 / std::sqrt(static_cast<float>(hd)) * nd(rng));
  for (auto& x : ow) x = rn(1 + 0.1f * nd(rng));
  std::vector<float> q(hd);
  for (int i = 0; i < hd; ++i) q[i] = bf(rw[i]) * bf(qw[i]);
  const double eps = 1e-5f;
  for (int t = 0; t < tokens; ++t) {
    std::vector<std::uint16_t> p(hd);
    for (int i = 0; i < hd; ++i) {
      const std::size_t k = static_cast<std::size_t>(t) * hd + i;
      p[i] = delta ? rn(bf(prefix[k]) + bf(dl[k])) : prefix[k];
    }
    auto src = [&](int n, int i) { return n < nb ? bf(blocks[(static_cast<std::size_t>(t) * nb + n) * hd + i]) : bf(p[i]); };
    // The float64 reference.
    std::vector<double> w(n_src), acc(hd);
    double top = -1e300, z = 0, s = 0, a2 = 0;
    for (int n = 0; n < n_src; ++n) {
      double ss = 0, dot = 0;
      for (int i = 0; i < hd; ++i) {
        ss += static_cast<double>(src(n, i)) * src(n, i);
        dot += static_cast<double>(src(n, i)) * q[i];
      }
      w[n] = dot / std::sqrt(ss / hd + eps);
      top = std::max(top, w[n]);
    }
    for (double& x : w) z += (x = std::exp(x - top));
    for (double& x : w) s += (x /= z);
    for (int i = 0; i < hd; ++i) {
      for (int n = 0; n < n_src; ++n) acc[i] += w[n] * src(n, i);
      a2 += acc[i] * acc[i];
    }
    const double r = 1 / std::sqrt(a2 / hd + eps * s * s);
    auto want = [&](int i) { return norm ? rn64(acc[i] * r * static_cast<double>(bf(ow[i]))) : rn64(acc[i] / s); };
    // Unit sums (8 elements in order), the butterfly over a slice's 32 units, then the slices:
    // lane l adds slices l, l + 32, ..., then the butterfly. In T (float or double).
    auto token_total = [&](auto zero, auto term) {
      using T = decltype(zero);
      std::vector<T> lanes(32, zero);
      for (int k = 0; k < slices; ++k) {
        std::vector<T> units(32);
        for (int u = 0; u < 32; ++u) {
          T sum = zero;
          for (int e = 0; e < 8; ++e) sum = term(k * 256 + u * 8 + e, sum);
          units[u] = sum;
        }
        lanes[k % 32] = lanes[k % 32] + butterfly(units);
      }
      return butterfly(lanes);
    };
    // (a) fp32 throughout.
    {
      std::vector<float> lf(n_src);
      float tf = -1e30f;
      for (int n = 0; n < n_src; ++n) {
        const float ss = token_total(0.0f, [&](int i, float a) { return std::fma(src(n, i), src(n, i), a); });
        const float dot = token_total(0.0f, [&](int i, float a) { return std::fma(src(n, i), q[i], a); });
        lf[n] = dot / std::sqrt(ss / static_cast<float>(hd) + 1e-5f);
        tf = std::max(tf, lf[n]);
      }
      float zf = 0, sf = 0;
      for (float& x : lf) zf += (x = std::exp(x - tf));
      for (float& x : lf) sf += (x /= zf);
      std::vector<float> af(hd);
      for (int i = 0; i < hd; ++i)
        for (int n = 0; n < n_src; ++n) af[i] = std::fma(lf[n], src(n, i), af[i]);
      const float a2f = token_total(0.0f, [&](int i, float a) { return std::fma(af[i], af[i], a); });
      const float rf = 1 / std::sqrt(a2f / static_cast<float>(hd) + 1e-5f * sf * sf);
      for (int i = 0; i < hd; ++i) fp32.add(want(i), norm ? rn(af[i] * rf * bf(ow[i])) : rn(af[i] / sf));
    }
    // (b) the kernel's arithmetic.
    {
      std::vector<double> e(n_src);
      double tv = -1e308;
      for (int n = 0; n < n_src; ++n) {
        const double ss = token_total(0.0, [&](int i, double a) { return std::fma(static_cast<double>(src(n, i)), src(n, i), a); });
        const double dot = token_total(0.0, [&](int i, double a) { return std::fma(static_cast<double>(src(n, i)), static_cast<double>(q[i]), a); });
        e[n] = dot * (1 / std::sqrt(std::fma(ss, 1.0 / hd, eps)));
        tv = std::max(tv, e[n]);
      }
      std::vector<double> lanes(32, 0.0);
      for (int n = 0; n < n_src; ++n) lanes[n] = e[n] = std::exp(e[n] - tv);
      const double zv = butterfly(lanes);
      std::vector<float> af(hd);
      long fallbacks = 0;
      for (int i = 0; i < hd; ++i) {
        float a = 0, bound = 0;
        for (int n = 0; n < n_src; ++n) {
          const float wf = static_cast<float>(e[n]);
          a = std::fma(wf, src(n, i), a);
          bound = std::fma(wf * 0x1p-10f, std::fabs(src(n, i)), bound);
        }
        if (!(std::fabs(a) >= bound)) {
          double d = 0;
          for (int n = 0; n < n_src; ++n) d = std::fma(e[n], static_cast<double>(src(n, i)), d);
          a = static_cast<float>(d);
          ++fallbacks;
        }
        af[i] = a;
      }
      (void)fallbacks;
      std::vector<double> sl(slices);
      for (int k = 0; k < slices; ++k) {
        std::vector<float> units(32);
        for (int u = 0; u < 32; ++u) {
          float sq = 0;
          for (int x = 0; x < 8; ++x) sq = std::fma(af[k * 256 + u * 8 + x], af[k * 256 + u * 8 + x], sq);
          units[u] = sq;
        }
        sl[k] = butterfly(units);
      }
      std::vector<double> l2(32, 0.0);
      for (int k = 0; k < slices; ++k) l2[k % 32] += sl[k];
      const double total = butterfly(l2);
      const float scale = norm ? static_cast<float>(1 / std::sqrt(std::fma(total, 1.0 / hd, eps * zv * zv))) : static_cast<float>(1 / zv);
      for (int i = 0; i < hd; ++i) v2.add(want(i), norm ? rn(af[i] * scale * bf(ow[i])) : rn(af[i] * scale));
    }
  }
}

void print(const char* name, const histogram& h) {
  std::printf("  %-6s %9ld elements: %.5f%% exact; bf16 ulps 0..6, 7+:", name, h.total, 100.0 * static_cast<double>(h.counts[0]) / static_cast<double>(h.total));
  for (long c : h.counts) std::printf(" %ld", c);
  long beyond = 0;
  for (int i = 2; i < 8; ++i) beyond += h.counts[i];
  std::printf("  (%ld beyond 1 ulp)\n", beyond);
}

}  // namespace

int main(int argc, char** argv) {
  const int tokens = argc > 1 ? std::atoi(argv[1]) : 200, seeds = argc > 2 ? std::atoi(argv[2]) : 2;
  struct kind {
    const char* name;
    int nb;
    bool delta, norm;
  };
  for (const kind& k : {kind{"common", 1, true, true}, kind{"common", 4, true, true}, kind{"common", 8, true, true},
                        kind{"post", 8, false, true}, kind{"final", 8, true, false}}) {
    histogram fp32, v2;
    for (int seed = 1; seed <= seeds; ++seed) run_case(k.nb, k.delta, k.norm, tokens, seed, fp32, v2);
    std::printf("%s NB=%d, T=%d x %d seeds, H=7168, against float64:\n", k.name, k.nb, tokens, seeds);
    print("fp32", fp32);
    print("kernel", v2);
  }
}
