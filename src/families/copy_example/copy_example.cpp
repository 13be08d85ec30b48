#include "families/copy_example/copy_example.hpp"

#include <cstdint>
#include <random>
#include <vector>

#include "device/resources.hpp"

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

namespace kk3::families {
namespace {

/// src (random bytes) and dst of one copy.
class copy_workspace final : public workspace {
 public:
  copy_workspace(long long bytes, unsigned long long seed)
      : m_src(static_cast<std::size_t>(bytes)), m_dst(static_cast<std::size_t>(bytes)), m_bytes(static_cast<unsigned long long>(bytes)) {
    std::vector<std::uint64_t> host((m_bytes + 7) / 8);
    std::mt19937_64 rng(seed);
    for (auto& w : host) w = rng();
    m_src.upload(host.data(), m_bytes);
    m_src_ptr = m_src.ptr();
    m_dst_ptr = m_dst.ptr();
  }
  void** args() override { return m_args; }

 private:
  device::device_buffer m_src, m_dst;
  unsigned long long m_bytes;
  CUdeviceptr m_src_ptr = 0, m_dst_ptr = 0;
  void* m_args[3] = {&m_src_ptr, &m_dst_ptr, &m_bytes};
};

}  // namespace

std::unique_ptr<workspace> copy_example::make_workspace(const shape& s, unsigned long long seed) const {
  return std::make_unique<copy_workspace>(copy_bytes(s), seed);
}

}  // namespace kk3::families
