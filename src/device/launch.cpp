#include "device/launch.hpp"

#include "device/check.hpp"

namespace kk3::device {

void launch(CUfunction fn, CUstream s, const launch_config& config, void** args) {
  CUlaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (config.pdl) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (config.shared_bytes > 48 * 1024) {  // beyond the default limit, a function must opt in
    KK3_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(config.shared_bytes));
  }
  const unsigned cluster_size = config.cluster.x * config.cluster.y * config.cluster.z;
  if (cluster_size > 1) {
    if (cluster_size > 8) KK3_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
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
  c.attrs = count ? attributes : nullptr;
  c.numAttrs = count;
  KK3_CU(cuLaunchKernelEx, &c, fn, args, nullptr);
}

}  // namespace kk3::device
