#include "device/launchability.hpp"

#include <cstdio>

#include "device/check.hpp"

namespace kk3::device {
namespace {

/// Most CTAs a cluster may have, with the non-portable cluster size attribute.
constexpr unsigned k_max_cluster_ctas = 16;

int function_attribute(CUfunction fn, CUfunction_attribute a) {
  int value = 0;
  KK3_CU(cuFuncGetAttribute, &value, a, fn);
  return value;
}

std::string registers_text(CUfunction fn) {
  return std::to_string(function_attribute(fn, CU_FUNC_ATTRIBUTE_NUM_REGS)) +
         " registers per thread";
}

std::string too_many_threads(CUfunction fn, const launch_config& c) {
  const int most = function_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (c.block.volume() <= static_cast<unsigned>(most)) return {};
  return std::to_string(c.block.volume()) + " threads per CTA, but the kernel can have at most " +
         std::to_string(most) + " (it needs " + registers_text(fn) + ")";
}

std::string too_much_shared_memory(long long shared_bytes, long long static_bytes,
                                   const device_info& info) {
  if (shared_bytes <= info.shared_per_block_optin_bytes) return {};
  return "needs " + kib_text(shared_bytes) + " of shared memory per CTA (" +
         kib_text(static_bytes) + " static, " + kib_text(shared_bytes - static_bytes) +
         " dynamic), the device allows " + kib_text(info.shared_per_block_optin_bytes);
}

std::string too_large_a_cluster(const launch_config& c) {
  if (c.cluster.volume() <= k_max_cluster_ctas) return {};
  return "a cluster of " + std::to_string(c.cluster.volume()) +
         " CTAs, the device allows at most " + std::to_string(k_max_cluster_ctas);
}

/// How many clusters of `c` (or, without a cluster, CTAs per SM) fit on the device at once,
/// in `fitting`; the driver's result as it is.
CUresult occupancy(CUfunction fn, const launch_config& c, int& fitting) {
  if (c.cluster.volume() <= 1) {
    return driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &fitting, fn, static_cast<int>(c.block.volume()), c.shared_bytes);
  }
  launch_config one = c;
  one.grid =
      c.cluster;  // one cluster: the grid must be a multiple of it, and its size does not matter
  one.pdl = false;
  std::array<CUlaunchAttribute, 2> attributes;
  const CUlaunchConfig d = driver_config(one, nullptr, attributes);
  return driver().cuOccupancyMaxActiveClusters(&fitting, fn, &d);
}

std::string does_not_fit(CUfunction fn, const launch_config& c, long long shared_bytes) {
  opt_in(fn, c);
  int fitting = 0;
  const CUresult r = occupancy(fn, c, fitting);
  const bool refused = r == CUDA_ERROR_INVALID_CLUSTER_SIZE || r == CUDA_ERROR_INVALID_VALUE;
  if (!refused) check_cu(r, "cuOccupancyMaxActive*(fn, config)", __FILE__, __LINE__);
  if (!refused && fitting > 0) return {};
  const std::string cta = std::to_string(c.block.volume()) + " threads, " + registers_text(fn) +
                          " and " + kib_text(shared_bytes) + " of shared memory";
  const std::string what =
      c.cluster.volume() > 1
          ? "a cluster of " + std::to_string(c.cluster.volume()) + " CTAs with " + cta + " each"
          : "a CTA of " + cta;
  if (refused) return "the driver's occupancy calculator refuses " + what + ": " + describe(r);
  return what + (c.cluster.volume() > 1 ? " does not fit on the device" : " does not fit on an SM");
}

}  // namespace

std::string kib_text(long long bytes) {
  char text[32];
  if (bytes % 1024 == 0) {
    std::snprintf(text, sizeof text, "%lld KiB", bytes / 1024);
  } else {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024);
  }
  return text;
}

std::string launch_problem(CUfunction fn, const launch_config& config, const device_info& info) {
  const long long static_bytes = function_attribute(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  const long long shared_bytes = static_bytes + config.shared_bytes;
  std::string why = too_many_threads(fn, config);
  if (why.empty()) why = too_much_shared_memory(shared_bytes, static_bytes, info);
  if (why.empty()) why = too_large_a_cluster(config);
  if (why.empty()) why = does_not_fit(fn, config, shared_bytes);
  return why;
}

}  // namespace kk3::device
