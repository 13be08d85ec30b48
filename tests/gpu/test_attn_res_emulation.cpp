// attn_res on the GPU against the CPU emulation of its arithmetic
// (src/families/attn_res/kernel_emulation.cpp): the kernel's fp32 operations in the kernel's
// order, written independently of the kernel source. Every variant must give these bits, so the
// emulation is a second, bitwise reference: it checks the reduction trees, the online softmax and
// the scalar functions of kernels/attn_res_math.h as compiled by NVRTC for the GPU, beyond the
// SPEC 1.3 bound the verifier applies against float64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device/handles.hpp"
#include "device/launch.hpp"
#include "families/attn_res/kernel_emulation.hpp"
#include "families/registry.hpp"
#include "families/tensor_workspace.hpp"
#include "jit/requests.hpp"
#include "space/config.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

class attn_res_emulation_gpu : public test::hopper_jit_test {};

/// The variants compared besides the reference; each must be in configs/attn_res.json's space.
const std::vector<std::string> k_others = {"b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1",
                                           "b1-gpw4-nc2-stage1-unroll1-stages2-tpc4-trigger1",
                                           "b1-gpw7-nc3-stage1-unroll1-stages2-tpc4-trigger1",
                                           "b1-gpw2-nc2-stage0-unroll1-stages1-tpc1-trigger1",
                                           "b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger0",
                                           "b1-gpw4-nc0-stage2-unroll1-stages1-tpc1-trigger0",
                                           "b1-gpw4-nc1-stage3-unroll1-stages1-tpc1-trigger0",
                                           "b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger1",
                                           "b1-gpw2-nc2-stage3-unroll1-stages1-tpc1-trigger0",
                                           "b1-gpw4-nc0-stage3-unroll1-stages1-tpc1-trigger1",
                                           "b1-gpw2-nc1-stage4-unroll1-stages1-tpc1-trigger1"};

// The reference variant and a few others (a cluster, the shared-memory ring of 4 tokens a cluster
// with chunks of 2 and 3 sources, chunks of 2 in registers, the two-pass shape with 2 and 4 slices
// a warp, the grouped two-pass shape with rows loaded 1 and 2 sources at a time or all at once,
// pass 2's reads evict-first) in a case of each kind, T = 65: every written tensor equal to the
// emulation's.
TEST_F(attn_res_emulation_gpu, the_kernel_writes_the_emulations_bits) {
  const auto space = families::load_family_space(families::find_family("attn_res"), KK3_CONFIG_DIR);
  const families::family& fam = *space.impl;
  const unsigned long long seed = std::random_device{}() | 1ull;
  std::cout << "[ seed ] " << seed << "\n";
  const device::stream stream;
  int compared = 0;
  for (const char* name :
       {"common_nb8", "post_nb8", "final_nb8", "write_nb4", "common_nb1", "write_nb0"}) {
    const space::mode& m = space::find_mode(space.config, name);
    const families::shape shape = fam.model_shape(65, m, {});
    const families::problem start = fam.make_problem(shape, m, seed);
    families::problem want = start;
    families::emulate_attn_res_kernel(families::attn_res_call_of(m, shape.tokens, want));
    for (const space::variant& v : space.variants) {
      const bool picked =
          v.is_reference || std::find(k_others.begin(), k_others.end(), v.id) != k_others.end();
      if (!picked) continue;
      const auto r =
          engine->compile(jit::make_request(space.config, m, v, info.arch, KK3_KERNEL_DIR));
      ASSERT_TRUE(r.ok) << r.log;
      const device::module module(r.cubin, r.label);
      const CUfunction fn = module.function(r.lowered_name);
      const auto ws = fam.make_workspace(shape, m, start);
      const auto* tensors = dynamic_cast<const families::tensor_workspace*>(ws.get());
      ASSERT_NE(tensors, nullptr);
      device::launch(fn, stream.get(), fam.geometry(v, m, shape), ws->args());
      stream.synchronize();
      families::problem got = start;
      tensors->download(got);
      for (const families::tensor& t : want.tensors) {
        const families::tensor& g = got.at(t.name);
        ASSERT_EQ(t.bytes.size(), g.bytes.size());
        std::size_t first = t.bytes.size(), differing = 0;
        for (std::size_t i = 0; i + 1 < t.bytes.size(); i += 2) {
          if (std::memcmp(&t.bytes[i], &g.bytes[i], 2) != 0) {
            first = std::min(first, i / 2);
            ++differing;
          }
        }
        EXPECT_EQ(differing, 0u) << name << " " << v.id << " " << t.name << ": " << differing
                                 << " elements differ from the emulation, the first at " << first;
      }
      ++compared;
    }
  }
  // The reference and the others, in 6 cases: an id no longer in the space fails here.
  EXPECT_EQ(compared, static_cast<int>(1 + k_others.size()) * 6);
}

}  // namespace
}  // namespace kk3
