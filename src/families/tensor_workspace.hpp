#pragma once
// A workspace whose device buffers mirror a problem's tensors, one buffer per tensor.
#include <string>
#include <vector>

#include "device/resources.hpp"
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

 private:
  std::vector<std::string> m_names;
  std::vector<device::device_buffer> m_buffers;
};

}  // namespace kk3::families
