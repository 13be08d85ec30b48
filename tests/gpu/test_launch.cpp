// GPU tests of the device layer: compile, load, launch with and without PDL, and replay a
// captured graph. They skip cleanly without a GPU (CTest label gpu).
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "device/device_info.hpp"
#include "device/handles.hpp"
#include "device/launch.hpp"
#include "families/copy_example/copy_example.hpp"
#include "families/registry.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

class gpu : public test::hopper_test {
 protected:
  void SetUp() override {
    hopper_test::SetUp();
    if (IsSkipped()) return;
    space = families::load_family_space(families::find_family("copy_example"), KK3_CONFIG_DIR);
  }

  // Random bytes from a logged seed.
  std::vector<unsigned char> random_bytes(std::size_t n) {
    const unsigned long long seed = std::random_device{}();
    std::cout << "[ seed ] " << seed << "\n";
    std::mt19937_64 rng(seed);
    std::vector<unsigned char> out(n);
    for (auto& b : out) b = static_cast<unsigned char>(rng());
    return out;
  }

  families::family_space space;
};

TEST_F(gpu, every_copy_variant_copies_with_and_without_pdl) {
  const auto engine = test::make_engine({});
  const families::shape shape{64};
  const std::size_t bytes = static_cast<std::size_t>(families::copy_example::copy_bytes(shape));
  const auto host = random_bytes(bytes);
  device::device_buffer src(bytes), mid(bytes), dst(bytes);
  src.upload(host.data(), bytes);
  device::stream s;
  std::vector<unsigned char> out(bytes);

  for (const space::variant& v : space.variants) {
    const auto r = engine.compile(
        jit::make_request(space.config, space.config.modes[0], v, info.arch, KK3_KERNEL_DIR));
    ASSERT_TRUE(r.ok) << r.log;
    const device::module m(r.cubin, r.label);
    const CUfunction fn = m.function(r.lowered_name);
    device::launch_config config = space.impl->geometry(v, space.config.modes[0], shape);
    unsigned long long n = bytes;

    // Without PDL: src -> dst.
    dst.fill(0xA5, s.get());
    CUdeviceptr in = src.ptr(), outp = dst.ptr();
    void* args[] = {&in, &outp, &n};
    config.pdl = false;
    device::launch(fn, s.get(), config, args);
    s.synchronize();
    dst.download(out.data(), bytes);
    ASSERT_EQ(out, host) << v.id << " without PDL";

    // With PDL behind a producer: src -> mid (plain), then mid -> dst (PDL, waits for mid).
    dst.fill(0xA5, s.get());
    mid.fill(0x5A, s.get());
    CUdeviceptr midp = mid.ptr();
    void* producer_args[] = {&in, &midp, &n};
    void* consumer_args[] = {&midp, &outp, &n};
    device::launch(fn, s.get(), config, producer_args);
    config.pdl = true;
    device::launch(fn, s.get(), config, consumer_args);
    s.synchronize();
    dst.download(out.data(), bytes);
    ASSERT_EQ(out, host) << v.id << " with PDL";
  }
}

TEST_F(gpu, captured_graph_replays_a_pdl_chain) {
  const auto engine = test::make_engine({});
  const space::variant& v = space::find_variant(space.variants, space.config, "reference");
  const auto r = engine.compile(
      jit::make_request(space.config, space.config.modes[0], v, info.arch, KK3_KERNEL_DIR));
  ASSERT_TRUE(r.ok) << r.log;
  const device::module m(r.cubin, r.label);
  const CUfunction fn = m.function(r.lowered_name);
  const families::shape shape{8};
  const std::size_t bytes = static_cast<std::size_t>(families::copy_example::copy_bytes(shape));
  const auto host = random_bytes(bytes);
  device::device_buffer a(bytes), b(bytes), c(bytes);
  a.upload(host.data(), bytes);
  device::stream s;
  device::launch_config config = space.impl->geometry(v, space.config.modes[0], shape);
  config.pdl = true;
  CUdeviceptr pa = a.ptr(), pb = b.ptr(), pc = c.ptr();
  unsigned long long n = bytes;
  void* ab[] = {&pa, &pb, &n};
  void* bc[] = {&pb, &pc, &n};

  device::begin_capture(s.get());
  device::launch(fn, s.get(), config, ab);
  device::launch(fn, s.get(), config, bc);
  const device::graph_exec g = device::graph_exec::end_capture(s.get());
  for (int replay = 0; replay < 3; ++replay) {
    c.fill(0, s.get());
    b.fill(0xFF, s.get());
    g.launch(s.get());
    s.synchronize();
    std::vector<unsigned char> out(bytes);
    c.download(out.data(), bytes);
    ASSERT_EQ(out, host) << "replay " << replay;
  }
}

TEST_F(gpu, doctor_reports_the_gpu_and_exits_0) {
  const auto r = test::run_kk3tune({"doctor"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(info.name), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernels compile for " + info.arch), std::string::npos) << r.output;
}

TEST_F(gpu, compile_without_arch_uses_the_gpu_arch) {
  test::temp_dir cache;
  const auto r = test::run_kk3tune(
      {"compile", "--family", "copy_example", "--cache-dir", cache.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("27 variant compiles for 1 arch(s): 27 ok"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(info.arch), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kk3
