#include "families/tensor_workspace.hpp"

#include "core/error.hpp"

namespace kk3::families {

tensor_workspace::tensor_workspace(const problem& p) {
  for (const tensor& t : p.tensors) {
    m_names.push_back(t.name);
    m_roles.push_back(t.use);
    m_buffers.emplace_back(t.bytes.size());
    m_buffers.back().upload(t.bytes.data(), t.bytes.size());
  }
}

const device::device_buffer& tensor_workspace::buffer(const std::string& name) const {
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    if (m_names[i] == name) return m_buffers[i];
  }
  throw error(error_kind::usage, "workspace has no tensor named " + name);
}

std::vector<std::pair<CUdeviceptr, std::size_t>> tensor_workspace::written(bool in_place) const {
  std::vector<std::pair<CUdeviceptr, std::size_t>> out;
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    if (m_roles[i] == role::output || (in_place && m_roles[i] == role::inout))
      out.emplace_back(m_buffers[i].ptr(), m_buffers[i].bytes());
  }
  return out;
}

CUdeviceptr tensor_workspace::ptr(const std::string& name) const {
  return buffer(name).ptr();
}

void tensor_workspace::download(problem& p) const {
  for (tensor& t : p.tensors) buffer(t.name).download(t.bytes.data(), t.bytes.size());
}

void tensor_workspace::restore(const tensor_workspace& from, CUstream s) const {
  for (std::size_t i = 0; i < m_names.size(); ++i)
    m_buffers[i].copy_from(from.buffer(m_names[i]), s);
}

void tensor_workspace::upload(const tensor& t) const {
  const device::device_buffer& b = buffer(t.name);
  b.upload(t.bytes.data(), t.bytes.size());
}

void tensor_workspace::fill(const std::string& name, unsigned char value, CUstream s) const {
  buffer(name).fill(value, s);
}

}  // namespace kk3::families
