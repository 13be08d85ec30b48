// Device keys and identities (issue 45, item 1): the names of the issue, a few invented ones,
// and what makes two cards of one name different devices.
#include <gtest/gtest.h>

#include "device/device_key.hpp"

namespace kk3::device {
namespace {

TEST(device_key, the_issues_names) {
  EXPECT_EQ(device_key("NVIDIA H100 80GB HBM3"), "NVIDIA_H100_80GB_HBM3");
  EXPECT_EQ(device_key("NVIDIA H200"), "NVIDIA_H200");
  EXPECT_EQ(device_key("NVIDIA H200 NVL"), "NVIDIA_H200_NVL");
  EXPECT_EQ(device_key("NVIDIA H20"), "NVIDIA_H20");
  EXPECT_EQ(device_key("NVIDIA B200"), "NVIDIA_B200");
}

TEST(device_key, invented_names) {
  EXPECT_EQ(device_key("  NVIDIA  GeForce RTX 4090 "), "NVIDIA_GeForce_RTX_4090");
  EXPECT_EQ(device_key("Tesla V100-SXM2-16GB"), "Tesla_V100_SXM2_16GB");
  EXPECT_EQ(device_key("NVIDIA A100-SXM4-80GB"), "NVIDIA_A100_SXM4_80GB");
  EXPECT_EQ(device_key("NVIDIA H100 PCIe"), "NVIDIA_H100_PCIe");
  EXPECT_EQ(device_key("NVIDIA RTX PRO 6000 Blackwell (Server Edition)"),
            "NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition");
  EXPECT_EQ(device_key("\xC3\x9C GPU/x"), "GPU_x");  // non-ASCII letters are separators
  EXPECT_EQ(device_key(""), "UNKNOWN_GPU");
  EXPECT_EQ(device_key(" -/ "), "UNKNOWN_GPU");
  // The runtime name vLLM's #23271 missed matches: the key is the whole name, not a prefix.
  EXPECT_NE(device_key("NVIDIA H100"), device_key("NVIDIA H100 80GB HBM3"));
}

TEST(device_key, same_name_other_figures_is_another_device) {
  device_info h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.sm_count = 132;
  h100.memory_bytes = 85'045'624'832LL;
  h100.max_memory_clock_mhz = 2619;
  const device_identity a = identity_of(h100);
  EXPECT_EQ(a.key, "NVIDIA_H100_80GB_HBM3");
  EXPECT_EQ(device_difference(a, a), "");

  device_identity cut = a;
  cut.sm_count = 114;
  EXPECT_EQ(device_difference(a, cut), "SM count 132 against 114");
  device_identity bigger = a;
  bigger.memory_bytes = 100'000'000'000LL;
  EXPECT_NE(device_difference(a, bigger).find("memory"), std::string::npos);
  device_identity near = a;
  near.memory_bytes += 1 << 20;  // a driver that reserves a MiB less: the same device
  EXPECT_EQ(device_difference(a, near), "");
  device_identity slower = a;
  slower.max_memory_clock_mhz = 1593;
  EXPECT_EQ(device_difference(a, slower), "peak memory clock 2619 against 1593 MHz");
  device_identity unrecorded = a;
  unrecorded.sm_count = 0;
  unrecorded.max_memory_clock_mhz = 0;
  EXPECT_EQ(device_difference(a, unrecorded), "") << "a figure not recorded is not compared";
  device_identity h200 = a;
  h200.key = "NVIDIA_H200";
  EXPECT_EQ(device_difference(a, h200), "device key NVIDIA_H100_80GB_HBM3 against NVIDIA_H200");
}

}  // namespace
}  // namespace kk3::device
