#include "families/tensor_workspace.hpp"

#include "core/error.hpp"

namespace kk3::families {

tensor_workspace::tensor_workspace(const problem& p) {
  for (const tensor& t : p.tensors) {
    m_names.push_back(t.name);
    m_buffers.emplace_back(t.bytes.size());
    m_buffers.back().upload(t.bytes.data(), t.bytes.size());
  }
}

CUdeviceptr tensor_workspace::ptr(const std::string& name) const {
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    if (m_names[i] == name) return m_buffers[i].ptr();
  }
  throw error(error_kind::usage, "workspace has no tensor named " + name);
}

void tensor_workspace::download(problem& p) const {
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    tensor& t = p.at(m_names[i]);
    m_buffers[i].download(t.bytes.data(), t.bytes.size());
  }
}

void tensor_workspace::upload(const tensor& t) const {
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    if (m_names[i] == t.name) return m_buffers[i].upload(t.bytes.data(), t.bytes.size());
  }
  throw error(error_kind::usage, "workspace has no tensor named " + t.name);
}

void tensor_workspace::fill(const std::string& name, unsigned char value, CUstream s) const {
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    if (m_names[i] == name) return m_buffers[i].fill(value, s);
  }
  throw error(error_kind::usage, "workspace has no tensor named " + name);
}

}  // namespace kk3::families
