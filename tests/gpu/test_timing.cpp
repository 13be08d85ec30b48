// GPU tests of the measurement engine, one per timing mode, on the example copy kernel. They
// check that each mode produces sane, complete measurements; they assert no performance target
// (those come from benchmarks that write JSON, under results/).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "device/device_info.hpp"
#include "families/registry.hpp"
#include "jit/requests.hpp"
#include "support/test_support.hpp"
#include "timing/timer.hpp"

namespace kk3::timing {
namespace {

class timing_gpu : public test::hopper_jit_test {
 protected:
  void SetUp() override {
    hopper_jit_test::SetUp();
    if (IsSkipped()) return;
    space = families::load_family_space(families::find_family("copy_example"), KK3_CONFIG_DIR);
    const auto& v = space::find_variant(space.variants, space.config, "reference");
    compiled = engine->compile(
        jit::make_request(space.config, space.config.modes[0], v, info.arch, KK3_KERNEL_DIR));
    ASSERT_TRUE(compiled.ok) << compiled.log;
    module.emplace(compiled.cubin, compiled.label);
  }

  candidate make_candidate(long long tokens, unsigned workspaces) {
    const families::shape shape{tokens};
    const auto& v = space::find_variant(space.variants, space.config, "reference");
    candidate c;
    c.label = v.id;
    c.tokens = tokens;
    c.function = module->function(compiled.lowered_name);
    c.config = space.impl->geometry(v, space.config.modes[0], shape);
    for (unsigned i = 0; i < workspaces; ++i) {
      owned.push_back(space.impl->random_workspace(shape, space.config.modes[0], 1000 + i));
      c.workspaces.push_back(owned.back().get());
    }
    c.bytes_moved = space.impl->bytes_moved(shape, space.config.modes[0]);
    return c;
  }

  // Checks what every measurement must satisfy, whatever the mode.
  static void expect_complete(const measurement& m, const timing_options& o) {
    EXPECT_NE(m.stopped, stop_reason::running);
    EXPECT_GE(m.stats.samples, o.stop.min_samples);
    EXPECT_EQ(m.samples_us.size(), m.clock_mhz.size());
    EXPECT_EQ(m.samples_us.size(), m.throttled.size());
    EXPECT_GT(m.stats.median, 0);
    EXPECT_TRUE(std::isfinite(m.stats.median));
    EXPECT_LE(m.stats.min, m.stats.median);
    EXPECT_LE(m.stats.median, m.stats.max);
    for (double mhz : m.clock_mhz) {
      EXPECT_GT(mhz, 100);  // the probe read a real clock
      EXPECT_LT(mhz, 5000);
    }
  }

  families::family_space space;
  jit::compile_result compiled;
  std::optional<device::module> module;
  std::vector<std::unique_ptr<families::workspace>> owned;
};

TEST_F(timing_gpu, graph_mode_gives_per_launch_times) {
  timer t(info, *helpers);
  timing_options o;
  o.mode = timing_mode::graph;
  const auto m = t.measure({make_candidate(64, 1)}, o).front();
  expect_complete(m, o);
  EXPECT_GE(m.launches_per_sample, 4u);
  EXPECT_TRUE(m.fits_in_l2);
  // 1.8 MB copied: more than an empty launch, far less than a millisecond.
  EXPECT_GT(m.stats.median, 0.3);
  EXPECT_LT(m.stats.median, 1000);
}

TEST_F(timing_gpu, isolated_mode_agrees_with_graph_mode_on_a_long_kernel) {
  timer t(info, *helpers);
  timing_options o;
  const candidate c = make_candidate(4096, 1);  // 117 MB copied: tens of microseconds
  o.mode = timing_mode::isolated;
  const auto iso = t.measure({c}, o).front();
  o.mode = timing_mode::graph;
  const auto graph = t.measure({c}, o).front();
  expect_complete(iso, o);
  expect_complete(graph, o);
  EXPECT_FALSE(iso.fits_in_l2);
  EXPECT_EQ(iso.launches_per_sample, 1u);
  // Launch overhead is small against tens of microseconds: the modes agree within 25%.
  EXPECT_NEAR(iso.stats.median / graph.stats.median, 1.0, 0.25)
      << "isolated " << iso.stats.median << " us, graph " << graph.stats.median << " us";
}

// A kernel that spins for a known time by %globaltimer: isolated mode must give that time back,
// plus the kernel's launch and exit (ncu measured 1.35 us for those on the H200).
class spin_workspace final : public families::workspace {
 public:
  explicit spin_workspace(unsigned long long ns) : m_ns(ns), m_out(8), m_ptr(m_out.ptr()) {}
  void** args() override { return m_args; }

 private:
  unsigned long long m_ns;
  device::device_buffer m_out;
  CUdeviceptr m_ptr;
  void* m_args[2] = {&m_ns, &m_ptr};
};

TEST_F(timing_gpu, isolated_mode_returns_a_self_timed_kernels_duration) {
  timer t(info, *helpers);
  timing_options o;
  o.mode = timing_mode::isolated;
  for (unsigned long long us : {3ull, 20ull, 60ull}) {
    spin_workspace w(us * 1000);
    candidate c;
    c.label = "spin" + std::to_string(us);
    c.function = helpers->self_timed();
    c.config.block.x = 32;
    c.workspaces = {&w};
    const auto m = t.measure({c}, o).front();
    EXPECT_GT(m.event_overhead_us, 0.0);
    EXPECT_LT(m.event_overhead_us, 5.0);
    EXPECT_GT(m.stats.median, static_cast<double>(us) - 0.3)
        << "event pair " << m.event_overhead_us << " us";
    EXPECT_LT(m.stats.median, static_cast<double>(us) + 2.5)
        << "event pair " << m.event_overhead_us << " us";
  }
}

TEST_F(timing_gpu, cold_mode_rotates_inputs_and_is_not_faster_than_hot) {
  timer t(info, *helpers);
  const long long tokens = 256;  // 7.3 MB: fits in L2 when hot
  const unsigned rotation =
      t.cold_rotation(space.impl->bytes_moved(families::shape{tokens}, space.config.modes[0]));
  EXPECT_GT(rotation, 1u);
  const candidate c = make_candidate(tokens, rotation);
  timing_options o;
  o.mode = timing_mode::cold;
  const auto cold = t.measure({c}, o).front();
  o.mode = timing_mode::isolated;
  const auto hot = t.measure({c}, o).front();
  expect_complete(cold, o);
  EXPECT_EQ(cold.rotated_workspaces, rotation);
  EXPECT_GE(cold.stats.median, 0.95 * hot.stats.median)
      << "cold " << cold.stats.median << " us, hot " << hot.stats.median << " us";
}

TEST_F(timing_gpu, chain_mode_reports_the_latency_the_variant_adds) {
  timer t(info, *helpers);
  timing_options o;
  o.mode = timing_mode::chain;
  const auto m = t.measure({make_candidate(2048, 1)}, o).front();
  EXPECT_NE(m.stopped, stop_reason::running);
  EXPECT_GE(m.stats.samples, o.stop.min_samples);
  EXPECT_GT(m.chain_base_us, o.chain.producer.duration_us);  // the producer alone runs 5 us
  EXPECT_GT(m.chain_total_us, m.chain_base_us);
  EXPECT_GT(m.stats.median, 1.0);  // a 59 MB copy adds microseconds
  EXPECT_NEAR(m.stats.median, m.chain_total_us - m.chain_base_us, 0.2 * m.stats.median);
}

TEST_F(timing_gpu, chain_mode_takes_samples_from_placements_in_turn) {
  timer t(info, *helpers);
  timing_options o;
  o.mode = timing_mode::chain;
  o.stop.min_samples = 12;
  // Left to the sampler: a one-token copy adds a microsecond or two, so it gets several (8 below
  // 1.8 us); a 59 MB copy adds far more than 5 us and gets 1.
  const auto small = t.measure({make_candidate(1, 1)}, o).front();
  EXPECT_GT(small.placements, 1u);
  EXPECT_LE(small.placements, 8u);
  const auto large = t.measure({make_candidate(2048, 1)}, o).front();
  EXPECT_EQ(large.placements, 1u);
  // Set: no more are made than samples are taken.
  o.placements = 3;
  const auto set = t.measure({make_candidate(1, 1)}, o).front();
  EXPECT_EQ(set.placements, 3u);
  o.stop.min_samples = 2;
  o.stop.max_samples = 2;
  o.placements = 8;
  const auto two = t.measure({make_candidate(1, 1)}, o).front();
  EXPECT_EQ(two.stats.samples, 2u);
  EXPECT_EQ(two.placements, 2u);
}

TEST_F(timing_gpu, a_producer_that_holds_every_sm_hides_nothing_of_the_variant) {
  // A 20 us kernel that never waits: beside a small producer that triggers its dependents at once
  // it runs under the producer's 5 us; a persistent producer (one CTA per SM holding all shared
  // memory, triggering at its end) leaves no room for it until the producer has ended. The chain
  // model decides what a variant's early work is worth (docs/objective.md).
  timer t(info, *helpers);
  spin_workspace w(20000);
  candidate c;
  c.label = "spin20";
  c.function = helpers->self_timed();
  c.config.block.x = 32;
  c.workspaces = {&w};
  timing_options o;
  o.mode = timing_mode::chain;
  o.chain.producer = {"persistent GEMM", 5, 1, 384, -1, 1};
  const auto held = t.measure({c}, o).front();
  o.chain.producer = {"small kernel", 5, 1, 128, 0, 0};
  const auto beside = t.measure({c}, o).front();
  EXPECT_GT(held.stats.median, 19.5) << "the whole 20 us is added";
  EXPECT_NEAR(held.stats.median - beside.stats.median, 5.0, 1.5)
      << "held " << held.stats.median << " us, beside " << beside.stats.median << " us";
  // A model that cannot be resident at once is refused, naming what does not fit.
  o.chain.producer = {"too big", 5, 2, 384, -1, 1};
  try {
    static_cast<void>(t.measure({c}, o));
    FAIL() << "two CTAs of all shared memory per SM were accepted";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("chain model: the producer's 2 CTA(s) per SM"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(timing_gpu, candidates_are_interleaved_and_each_converges) {
  timer t(info, *helpers);
  timing_options o;
  const auto ms = t.measure({make_candidate(16, 1), make_candidate(512, 1)}, o);
  ASSERT_EQ(ms.size(), 2u);
  for (const auto& m : ms) expect_complete(m, o);
  EXPECT_LT(ms[0].stats.median, ms[1].stats.median);  // 16 rows copy faster than 512
}

TEST_F(timing_gpu, time_command_writes_json_and_exits_0) {
  test::temp_dir dir;
  const auto json = (dir.path() / "t.json").string();
  const auto r = test::run_kk3tune({"time", "--family", "copy_example", "--tokens", "64",
                                    "--timing", "isolated", "--json", json});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("objective  isolated (PDL)"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(json));
  const auto p =
      test::run_kk3tune({"profile", "--family", "copy_example", "--tokens", "64", "-n", "5"});
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("profiled 5 launches"), std::string::npos) << p.output;
}

TEST_F(timing_gpu, device_flag_selects_the_gpu_and_names_one_that_is_not_there) {
  // Issue 17: --device N for time, profile, verify and sweep (GPU 0 was hard-coded).
  const int count = device::device_count();
  auto r = test::run_kk3tune({"time", "--family", "copy_example", "--tokens", "64", "--device",
                              std::to_string(count - 1), "--max-time", "0.05"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const auto& args :
       {std::vector<std::string>{"time", "--family", "copy_example", "--tokens", "64"},
        std::vector<std::string>{"profile", "--family", "copy_example", "--tokens", "64", "-n",
                                 "2"},
        std::vector<std::string>{"verify", "--family", "copy_example", "--variant", "reference"}}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--device", std::to_string(count)});
    r = test::run_kk3tune(a);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("kk3tune: usage error: --device " + std::to_string(count) +
                            ": the driver sees " + std::to_string(count) + " GPU(s)"),
              std::string::npos)
        << r.output;
  }
}

}  // namespace
}  // namespace kk3::timing
