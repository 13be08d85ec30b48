#include "device/launch.hpp"

#include "device/check.hpp"

namespace kk3::device {

void opt_in(CUfunction fn, const launch_config& config) {
  if (config.shared_bytes > k_default_dynamic_shared_bytes) {
    KK3_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
           static_cast<int>(config.shared_bytes));
  }
  if (config.cluster.volume() > k_portable_cluster_ctas) {
    KK3_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  }
}

CUlaunchConfig driver_config(const launch_config& config, CUstream s,
                             std::array<CUlaunchAttribute, 2>& attributes) {
  attributes = {};
  unsigned count = 0;
  if (config.pdl) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (config.cluster.volume() > 1) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[count].value.clusterDim.x = config.cluster.x;
    attributes[count].value.clusterDim.y = config.cluster.y;
    attributes[count++].value.clusterDim.z = config.cluster.z;
  }
  CUlaunchConfig c = {};
  c.gridDimX = config.grid.x;
  c.gridDimY = config.grid.y;
  c.gridDimZ = config.grid.z;
  c.blockDimX = config.block.x;
  c.blockDimY = config.block.y;
  c.blockDimZ = config.block.z;
  c.sharedMemBytes = config.shared_bytes;
  c.hStream = s;
  c.attrs = count ? attributes.data() : nullptr;
  c.numAttrs = count;
  return c;
}

void launch(CUfunction fn, CUstream s, const launch_config& config, void** args) {
  opt_in(fn, config);
  std::array<CUlaunchAttribute, 2> attributes;
  const CUlaunchConfig c = driver_config(config, s, attributes);
  KK3_CU(cuLaunchKernelEx, &c, fn, args, nullptr);
}

}  // namespace kk3::device
