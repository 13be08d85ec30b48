#include "families/problem.hpp"

#include "core/error.hpp"

namespace kk3::families {

std::size_t dtype_bytes(dtype t) {
  switch (t) {
    case dtype::bf16: return 2;
    case dtype::fp8_e4m3: return 1;
    case dtype::fp32: return 4;
    case dtype::int64: return 8;
    case dtype::u8: return 1;
  }
  return 1;
}

const char* to_string(dtype t) {
  switch (t) {
    case dtype::bf16: return "bf16";
    case dtype::fp8_e4m3: return "fp8_e4m3";
    case dtype::fp32: return "fp32";
    case dtype::int64: return "int64";
    case dtype::u8: return "u8";
  }
  return "?";
}

tensor& problem::at(const std::string& name) {
  for (tensor& t : tensors) {
    if (t.name == name) return t;
  }
  throw error(error_kind::usage, "no tensor named " + name);
}

const tensor& problem::at(const std::string& name) const { return const_cast<problem*>(this)->at(name); }

tensor& problem::add(const std::string& name, dtype type, std::vector<long long> dims, role use, bool upstream) {
  long long n = 1;
  for (long long d : dims) n *= d;
  tensor t;
  t.name = name;
  t.type = type;
  t.dims = std::move(dims);
  t.use = use;
  t.upstream = upstream;
  t.bytes.assign(static_cast<std::size_t>(n) * dtype_bytes(type), 0);
  tensors.push_back(std::move(t));
  return tensors.back();
}

}  // namespace kk3::families
