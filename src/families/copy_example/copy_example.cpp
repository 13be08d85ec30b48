#include "families/copy_example/copy_example.hpp"

namespace kk3::families {

device::launch_config copy_example::geometry(const space::variant& v, const shape& s) const {
  const long long threads = v.value("THREADS");
  const long long per_block = threads * v.value("UNROLL") * v.value("VEC_BYTES");
  const long long blocks = (copy_bytes(s) + per_block - 1) / per_block;
  device::launch_config c;
  c.grid.x = static_cast<unsigned>(blocks < 1 ? 1 : blocks);
  c.block.x = static_cast<unsigned>(threads);
  return c;
}

double copy_example::bytes_moved(const shape& s) const { return 2.0 * static_cast<double>(copy_bytes(s)); }

}  // namespace kk3::families
