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
  /// Copies every tensor back into `p` (which must have the same tensors).
  void download(problem& p) const;
  /// Copies one tensor's bytes to the device.
  void upload(const tensor& t) const;
  /// Fills one tensor's buffer with a byte, on stream `s`.
  void fill(const std::string& name, unsigned char value, CUstream s) const;

 private:
  std::vector<std::string> m_names;
  std::vector<device::device_buffer> m_buffers;
};

}  // namespace kk3::families
