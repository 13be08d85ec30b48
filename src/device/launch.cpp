#include "device/launch.hpp"

#include "device/check.hpp"

namespace kk3::device {

void launch(CUfunction fn, CUstream s, const launch_config& config, void** args) {
  CUlaunchAttribute attributes[1] = {};
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attributes[0].value.programmaticStreamSerializationAllowed = 1;

  CUlaunchConfig c = {};
  c.gridDimX = config.grid.x;
  c.gridDimY = config.grid.y;
  c.gridDimZ = config.grid.z;
  c.blockDimX = config.block.x;
  c.blockDimY = config.block.y;
  c.blockDimZ = config.block.z;
  c.sharedMemBytes = config.shared_bytes;
  c.hStream = s;
  c.attrs = config.pdl ? attributes : nullptr;
  c.numAttrs = config.pdl ? 1 : 0;
  KK3_CU(cuLaunchKernelEx, &c, fn, args, nullptr);
}

}  // namespace kk3::device
