#include "timing/helper_kernels.hpp"

#include "core/error.hpp"

namespace kk3::timing {
namespace {

device::module compile_helpers(const jit::jit_engine& engine, const std::string& arch,
                               const std::filesystem::path& kernel_dir) {
  jit::compile_request r;
  r.label = "timing helpers @ " + arch;
  r.source = kernel_dir / "timing" / "helpers.cuh";
  r.name_expression = "kk3_gate";  // extern "C": every helper is in the image under its own name
  r.arch = arch;
  const jit::compile_result c = engine.compile(r);
  if (!c.ok) throw error(error_kind::compile, r.label + " failed to compile:\n" + c.log);
  return device::module(c.cubin, r.label);
}

}  // namespace

helper_kernels::helper_kernels(const jit::jit_engine& engine, const std::string& arch,
                               const std::filesystem::path& kernel_dir)
    : m_module(compile_helpers(engine, arch, kernel_dir)),
      m_gate(m_module.function("kk3_gate")),
      m_clock(m_module.function("kk3_clock_probe")),
      m_flush(m_module.function("kk3_l2_flush")),
      m_producer(m_module.function("kk3_producer")),
      m_consumer(m_module.function("kk3_consumer")),
      m_self_timed(m_module.function("kk3_self_timed")),
      m_producer_delayed(m_module.function("kk3_delayed_producer")),
      m_first_difference(m_module.function("kk3_first_difference")),
      m_empty(m_module.function("kk3_empty")) {}

}  // namespace kk3::timing
