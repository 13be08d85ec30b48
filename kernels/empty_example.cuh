#pragma once
// An empty kernel with a decode kernel's PDL calls: the floor a launch costs, measured the same
// way as the families (benchmarks report it beside them). Not a family.
#include "common/pdl.cuh"

template <int THREADS>
__global__ void __launch_bounds__(THREADS) empty_kernel(int unused) {
  (void)unused;
  kk3_pdl_wait();
  kk3_pdl_trigger();
}
