// Diagnostic: what a CUDA event pair adds around a kernel on this GPU. Prints the median over
// 51 gated samples of: the interval of an event pair with nothing between (E0); the interval
// around an empty kernel; and, for a kernel that times itself with %globaltimer (spinning 0, 5
// and 20 us), the interval and the kernel's own time. Run it under
//   ncu --metrics gpu__time_duration.sum --kernel-name kk3_self_timed
// to compare ncu's duration with the kernel's own time.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/paths.hpp"
#include "device/device_info.hpp"
#include "device/handles.hpp"
#include "device/launch.hpp"
#include "jit/batch.hpp"
#include "jit/toolkit.hpp"
#include "timing/gate.hpp"
#include "timing/helper_kernels.hpp"
#include "timing/statistics.hpp"

using namespace kk3;

int main() {
  const device::device_info info = device::query_device(0);
  device::context ctx(0);
  jit::jit_options jo;
  jo.use_cache = false;
  const jit::jit_engine engine(
      jit::nvrtc_compiler(find_kernel_dir().dir, jit::require_cuda_include_dir().dir), jo);
  const timing::helper_kernels h(engine, info.arch, find_kernel_dir().dir);
  timing::gated_stream gated(h);
  device::device_buffer own(8);
  auto gated_interval = [&](auto enqueue) { return gated.interval_us(enqueue); };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return timing::quantile_sorted(v, 0.5);
  };

  std::vector<double> e0;
  for (int i = 0; i < 51; ++i) e0.push_back(gated_interval([] {}));
  std::printf("event pair, nothing between: %.3f us\n", median(e0));
  for (unsigned long long spin_us : {0ull, 5ull, 20ull}) {
    std::vector<double> interval, self;
    for (int i = 0; i < 51; ++i) {
      CUdeviceptr out = own.ptr();
      unsigned long long ns = spin_us * 1000;
      void* a[] = {&ns, &out};
      device::launch_config one;
      one.block.x = 32;
      interval.push_back(
          gated_interval([&] { device::launch(h.self_timed(), gated.get(), one, a); }));
      unsigned long long t = 0;
      own.download(&t, 8);
      self.push_back(t * 1e-3);
    }
    std::printf(
        "self-timed kernel spinning %llu us: interval %.3f us, own time %.3f us, difference %.3f "
        "us\n",
        spin_us, median(interval), median(self), median(interval) - median(self));
  }
  return 0;
}
