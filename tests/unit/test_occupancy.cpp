// device/occupancy: the occupancy calculator's arithmetic against cases computed by hand (each
// case's comment shows the arithmetic; cuda_occupancy.h's rules, the H200's limits).
#include <gtest/gtest.h>

#include "device/occupancy.hpp"

namespace kk3::device {
namespace {

sm_target h200() {
  return *target_for_arch("sm_90a");
}

occupancy of(int registers, int threads, long long static_shared = 0, long long dynamic = 0) {
  return theoretical_occupancy({registers, static_shared, dynamic, threads}, h200());
}

TEST(Occupancy, NamedTargets) {
  const sm_target h = h200();
  EXPECT_EQ(h.name, "H200");
  EXPECT_EQ(h.sm_count, 132);
  EXPECT_EQ(h.registers_per_sm, 65536);
  EXPECT_EQ(h.shared_per_sm, 228 * 1024);
  EXPECT_EQ(h.max_shared_per_cta, 227 * 1024);
  const std::optional<sm_target> b = target_for_arch("sm_100a");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name, "B200");
  EXPECT_EQ(b->sm_count, 148);
  EXPECT_EQ(b->max_warps_per_sm, 64);
  EXPECT_FALSE(target_for_arch("sm_80"));
}

TEST(Occupancy, WarpsAndRegistersTie) {
  // 8 warps: 64 / 8 = 8 by warps; 32 regs x 32 = 1024 per warp, 16384 / 1024 = 16 warps per
  // sub-partition, 64 / 8 = 8 by registers; shared 1 KiB reserve: 228; CTAs 32.
  const occupancy o = of(32, 256);
  EXPECT_EQ(o.ctas_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
  EXPECT_EQ(o.limiter, "warps+registers");
  EXPECT_EQ(o.by_shared, 228);
}

TEST(Occupancy, RegisterLimit255) {
  // 255 x 32 = 8160 -> 8192 per warp; 16384 / 8192 = 2 warps per sub-partition, 8 per SM;
  // 4 warps per CTA: 2 CTAs, 8 warps, 12.5%.
  const occupancy o = of(255, 128);
  EXPECT_EQ(o.ctas_per_sm, 2);
  EXPECT_EQ(o.warps_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.fraction, 0.125);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(Occupancy, OddWarpCount) {
  // 3 warps of 168 regs: 5376 per warp (21 units); 16384 / 5376 = 3 per sub-partition, 12 per
  // SM, 12 / 3 = 4 CTAs; by warps 64 / 3 = 21.
  const occupancy o = of(168, 96);
  EXPECT_EQ(o.by_warps, 21);
  EXPECT_EQ(o.ctas_per_sm, 4);
  EXPECT_EQ(o.warps_per_sm, 12);
  EXPECT_DOUBLE_EQ(o.fraction, 12.0 / 64);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(Occupancy, FullCtaOfRegisters) {
  // 1024 threads x 64 regs = 65536: one CTA, 32 warps, 50%; by warps 2.
  const occupancy o = of(64, 1024);
  EXPECT_EQ(o.ctas_per_sm, 1);
  EXPECT_EQ(o.by_warps, 2);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "registers");
  // 72 regs: 2304 per warp x 32 warps = 73728 > 65536: it cannot run.
  const occupancy none = of(72, 1024);
  EXPECT_EQ(none.ctas_per_sm, 0);
  EXPECT_EQ(none.fraction, 0);
  EXPECT_NE(none.limiter.find("registers 72 x 1024 threads do not fit"), std::string::npos);
}

TEST(Occupancy, SharedMemoryLimit) {
  // 1000 + 100000 + 1024 reserve = 102024 -> 102144 (128-byte units); 233472 / 102144 = 2.
  const occupancy o = of(32, 64, 1000, 100000);
  EXPECT_EQ(o.by_shared, 2);
  EXPECT_EQ(o.ctas_per_sm, 2);
  EXPECT_EQ(o.warps_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.fraction, 4.0 / 64);
  EXPECT_EQ(o.limiter, "shared memory");
  // 227 KiB exactly fits once; a byte more does not.
  EXPECT_EQ(of(32, 64, 0, 227 * 1024).ctas_per_sm, 1);
  const occupancy over = of(32, 64, 0, 227 * 1024 + 1);
  EXPECT_EQ(over.ctas_per_sm, 0);
  EXPECT_NE(over.limiter.find("shared memory"), std::string::npos);
}

TEST(Occupancy, CtaLimit) {
  // One warp of 16 regs: 64 by warps, 128 by registers; 32 CTAs per SM bound it: 50%.
  const occupancy o = of(16, 32);
  EXPECT_EQ(o.ctas_per_sm, 32);
  EXPECT_EQ(o.warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "CTAs");
}

TEST(Occupancy, ThreadsOutOfRange) {
  EXPECT_EQ(of(32, 0).ctas_per_sm, 0);
  const occupancy o = of(32, 1056);
  EXPECT_EQ(o.ctas_per_sm, 0);
  EXPECT_NE(o.limiter.find("threads per CTA 1056"), std::string::npos);
}

}  // namespace
}  // namespace kk3::device
