#include "families/problem.hpp"

#include <algorithm>
#include <cmath>
#include <future>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/thread_pool.hpp"

namespace kk3::families {

std::size_t dtype_bytes(dtype t) {
  switch (t) {
    case dtype::bf16:
      return 2;
    case dtype::fp8_e4m3:
      return 1;
    case dtype::fp32:
      return 4;
    case dtype::int64:
      return 8;
    case dtype::u8:
      return 1;
  }
  return 1;
}

const char* to_string(dtype t) {
  switch (t) {
    case dtype::bf16:
      return "bf16";
    case dtype::fp8_e4m3:
      return "fp8_e4m3";
    case dtype::fp32:
      return "fp32";
    case dtype::int64:
      return "int64";
    case dtype::u8:
      return "u8";
  }
  return "?";
}

tensor& problem::at(const std::string& name) {
  for (tensor& t : tensors) {
    if (t.name == name) return t;
  }
  throw error(error_kind::usage, "no tensor named " + name);
}

const tensor& problem::at(const std::string& name) const {
  return const_cast<problem*>(this)->at(name);
}

tensor& problem::add(const std::string& name, dtype type, std::vector<long long> dims, role use,
                     bool upstream) {
  long long n = 1;
  for (long long d : dims) n *= d;
  tensor t;
  t.name = name;
  t.type = type;
  t.dims = std::move(dims);
  t.use = use;
  t.upstream = upstream;
  t.bytes.assign(static_cast<std::size_t>(n) * dtype_bytes(type), 0);
  tensors.push_back(std::move(t));
  return tensors.back();
}

namespace {
thread_pool& pool() {
  static thread_pool p;
  return p;
}
}  // namespace

const float* fast_normal::quantiles() {
  // Phi^-1 by bisection on Phi(x) = erfc(-x / sqrt 2) / 2, once: 2^16 x 64 steps, about 30 ms.
  static const std::vector<float> table = [] {
    constexpr int k_cells = 1 << 16;
    std::vector<float> t(k_cells);
    for (int k = 0; k < k_cells; ++k) {
      const double p = (k + 0.5) / k_cells;
      double lo = -10.0, hi = 10.0;
      for (int step = 0; step < 64; ++step) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
      }
      t[static_cast<std::size_t>(k)] = static_cast<float>(0.5 * (lo + hi));
    }
    return t;
  }();
  return table.data();
}

void parallel_fill(std::size_t count, unsigned long long seed, const std::string& salt,
                   const std::function<void(std::mt19937_64&, std::size_t, std::size_t)>& fill) {
  constexpr std::size_t k_chunk = std::size_t{1} << 20;
  const std::string base = hash_hex(std::to_string(seed) + "/" + salt);
  std::vector<std::future<void>> done;
  for (std::size_t begin = 0; begin < count; begin += k_chunk) {
    done.push_back(pool().submit([&, begin] {
      const std::string h = hash_hex(base + "/" + std::to_string(begin / k_chunk));
      std::mt19937_64 rng(std::stoull(h.substr(0, 16), nullptr, 16));
      fill(rng, begin, std::min(count, begin + k_chunk));
    }));
  }
  for (auto& d : done) d.get();
}

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body) {
  const std::size_t workers = pool().size();
  std::vector<std::future<void>> done;
  for (std::size_t w = 0; w < workers; ++w) {
    done.push_back(pool().submit([&, w] {
      for (std::size_t i = w; i < count; i += workers) body(i);
    }));
  }
  for (auto& d : done) d.get();
}

}  // namespace kk3::families
