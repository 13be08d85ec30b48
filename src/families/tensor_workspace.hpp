#pragma once
// A workspace whose device buffers mirror a problem's tensors, one buffer per tensor.
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "device/handles.hpp"
#include "families/family.hpp"
#include "families/problem.hpp"

namespace kk3::families {

/// Uploads every tensor of a problem; families derive from it and build their argument array
/// from ptr(name).
class tensor_workspace : public workspace {
 public:
  explicit tensor_workspace(const problem& p);

  /// The device address of a tensor's buffer; throws error(usage) for an unknown name.
  CUdeviceptr ptr(const std::string& name) const;
  /// Copies back every tensor that `p` has (it may hold only some of the workspace's tensors).
  void download(problem& p) const;
  /// Copies every tensor of `from` (the same problem's workspace) over this one's, on `s`.
  void restore(const tensor_workspace& from, CUstream s) const;
  /// The device buffer of a tensor; throws error(usage) for an unknown name.
  const device::device_buffer& buffer(const std::string& name) const;
  /// Copies one tensor's bytes to the device.
  void upload(const tensor& t) const;
  /// Fills one tensor's buffer with a byte, on stream `s`.
  void fill(const std::string& name, unsigned char value, CUstream s) const;
  std::vector<std::pair<CUdeviceptr, std::size_t>> written(bool in_place) const override;

 private:
  std::vector<std::string> m_names;
  std::vector<role> m_roles;
  std::vector<device::device_buffer> m_buffers;
};

/// A workspace whose kernel takes plain arguments: device pointers to some of its tensors, in
/// order, then scalars (each copied as its own type: an int stays 4 bytes). For a family whose
/// kernel takes no parameter block.
class argument_workspace final : public tensor_workspace {
 public:
  template <class... Scalars>
  argument_workspace(const problem& p, const std::vector<std::string>& pointers, Scalars... scalars)
      : tensor_workspace(p) {
    static_assert(((sizeof(Scalars) <= sizeof(slot)) && ...),
                  "a scalar argument wider than 8 bytes");
    m_slots.reserve(pointers.size() + sizeof...(Scalars));
    for (const std::string& name : pointers) add(ptr(name));
    (add(scalars), ...);
    for (slot& s : m_slots) m_args.push_back(s.bytes);
  }
  void** args() override { return m_args.data(); }

 private:
  struct slot {
    alignas(8) unsigned char bytes[8];
  };
  template <class T>
  void add(T value) {
    slot s{};
    static_assert(std::is_trivially_copyable_v<T>, "a kernel argument is copied as bytes");
    std::memcpy(s.bytes, &value, sizeof value);
    m_slots.push_back(s);
  }
  std::vector<slot> m_slots;  ///< reserved up front: m_args points into it
  std::vector<void*> m_args;
};

}  // namespace kk3::families
