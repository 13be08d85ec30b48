#include "families/copy_example/copy_example.hpp"

#include <cstring>
#include <random>

#include "families/tensor_workspace.hpp"

namespace kk3::families {

device::launch_config copy_example::geometry(const space::variant& v, const space::mode&,
                                             const shape& s) const {
  const long long threads = v.value("THREADS");
  const long long per_block = threads * v.value("UNROLL") * v.value("VEC_BYTES");
  const long long blocks = (copy_bytes(s) + per_block - 1) / per_block;
  device::launch_config c;
  c.grid.x = static_cast<unsigned>(blocks < 1 ? 1 : blocks);
  c.block.x = static_cast<unsigned>(threads);
  return c;
}

double copy_example::bytes_moved(const shape& s, const space::mode&) const {
  return 2.0 * static_cast<double>(copy_bytes(s));
}

shape copy_example::model_shape(long long tokens, const space::mode&, const dims&) const {
  return shape{tokens};
}

std::vector<shape> copy_example::edge_shapes(const shape&, const space::mode&) const {
  return {shape{1}, shape{3}};
}

problem copy_example::make_problem(const shape& s, const space::mode&,
                                   unsigned long long seed) const {
  problem p;
  tensor& src = p.add("src", dtype::u8, {copy_bytes(s)}, role::input, true);
  p.add("dst", dtype::u8, {copy_bytes(s)}, role::output);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < src.bytes.size(); i += 8) {
    const std::uint64_t w = rng();
    std::memcpy(src.bytes.data() + i, &w, std::min<std::size_t>(8, src.bytes.size() - i));
  }
  return p;
}

void copy_example::reference(const shape&, const space::mode&, problem& p) const {
  p.at("dst").bytes = p.at("src").bytes;
}

std::unique_ptr<workspace> copy_example::make_workspace(const shape&, const space::mode&,
                                                        const problem& p) const {
  const unsigned long long bytes = p.at("src").bytes.size();
  return std::make_unique<argument_workspace>(p, std::vector<std::string>{"src", "dst"}, bytes);
}

const family& register_copy_example() {
  static const copy_example k_family;
  return k_family;
}

}  // namespace kk3::families
