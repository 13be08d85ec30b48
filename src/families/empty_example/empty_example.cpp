#include "families/empty_example/empty_example.hpp"

#include "families/tensor_workspace.hpp"

namespace kk3::families {

device::launch_config empty_example::geometry(const space::variant& v, const space::mode&, const shape&) const {
  device::launch_config c;
  c.block.x = static_cast<unsigned>(v.value("THREADS"));
  return c;
}

namespace {

class empty_workspace final : public tensor_workspace {
 public:
  explicit empty_workspace(const problem& p) : tensor_workspace(p) {}
  void** args() override { return m_args; }

 private:
  int m_unused = 0;
  void* m_args[1] = {&m_unused};
};

}  // namespace

std::unique_ptr<workspace> empty_example::make_workspace(const shape&, const space::mode&, const problem& p) const {
  return std::make_unique<empty_workspace>(p);
}

const family& register_empty_example() {
  static const empty_example k_family;
  return k_family;
}

}  // namespace kk3::families
