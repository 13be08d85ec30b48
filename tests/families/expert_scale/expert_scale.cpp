#include "expert_scale/expert_scale.hpp"

#include <random>

#include "families/numerics.hpp"
#include "families/tensor_workspace.hpp"

namespace kk3::families {

namespace {

long long experts_of(const shape& s) {
  return s.at("experts");
}

}  // namespace

shape expert_scale::model_shape(long long tokens, const space::mode&, const dims& given) const {
  shape s;
  s.tokens = tokens;
  s.set("experts", dim_or(given, "experts", k_default_experts));
  return s;
}

device::launch_config expert_scale::geometry(const space::variant& v, const space::mode&,
                                             const shape& s) const {
  const long long rows = s.tokens * experts_of(s), per_cta = v.value("ROWS");
  device::launch_config c;
  c.grid.x = static_cast<unsigned>((rows + per_cta - 1) / per_cta);
  c.block.x = static_cast<unsigned>(v.value("THREADS"));
  return c;
}

double expert_scale::bytes_moved(const shape& s, const space::mode&) const {
  const double rows = static_cast<double>(s.tokens * experts_of(s));
  return 2.0 * rows * k_row * 2 +
         static_cast<double>(experts_of(s)) * 4;  // x read, y written, the scales
}

std::vector<shape> expert_scale::edge_shapes(const shape& model, const space::mode&) const {
  auto with = [&](long long t, long long e) {
    shape s = model;
    s.tokens = t;
    s.set("experts", e);
    return s;
  };
  return {with(1, experts_of(model)), with(3, 1),
          with(5, 3)};  // odd row counts: a half-full last CTA
}

problem expert_scale::make_problem(const shape& s, const space::mode&,
                                   unsigned long long seed) const {
  const long long rows = s.tokens * experts_of(s);
  problem p;
  tensor& x = p.add("x", dtype::bf16, {s.tokens, experts_of(s), k_row}, role::input, true);
  tensor& scale = p.add("scale", dtype::fp32, {experts_of(s)}, role::input);
  p.add("y", dtype::bf16, {s.tokens, experts_of(s), k_row}, role::output);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (long long e = 0; e < experts_of(s); ++e)
    scale.data<float>()[e] = 0.25f + std::abs(normal(rng));
  parallel_fill(static_cast<std::size_t>(rows * k_row), seed, "x",
                [&](std::mt19937_64& r, std::size_t begin, std::size_t end) {
                  std::normal_distribution<float> n(0.0f, 1.0f);
                  for (std::size_t i = begin; i < end; ++i)
                    x.data<std::uint16_t>()[i] = f32_to_bf16_rn(n(r));
                });
  return p;
}

void expert_scale::reference(const shape& s, const space::mode&, problem& p) const {
  const long long experts = experts_of(s), rows = s.tokens * experts;
  const auto* x = p.at("x").data<std::uint16_t>();
  const auto* scale = p.at("scale").data<float>();
  auto* y = p.at("y").data<std::uint16_t>();
  for (long long row = 0; row < rows; ++row) {
    for (long long i = 0; i < k_row; ++i)
      y[row * k_row + i] = f32_to_bf16_rn(bf16_to_f32(x[row * k_row + i]) * scale[row % experts]);
  }
}

std::unique_ptr<workspace> expert_scale::make_workspace(const shape& s, const space::mode&,
                                                        const problem& p) const {
  return std::make_unique<argument_workspace>(p, std::vector<std::string>{"x", "scale", "y"},
                                              static_cast<int>(s.tokens),
                                              static_cast<int>(experts_of(s)));
}

const family& register_expert_scale() {
  static const expert_scale k_family;
  return k_family;
}

}  // namespace kk3::families
