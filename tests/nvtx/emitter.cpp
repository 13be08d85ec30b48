// Emits the NVTX ranges of one tuned variant through kk3::nvtx::scoped_range, the way the sweep
// nests them, for test_nvtx.cpp to read back through the recorder injection library:
//
//   main thread:  sweep > copy_example > T64 > vec_bytes16-unroll1-threads256 > measure, verify
//   worker:       measure (pushed while the main thread sits inside the variant range)
//
// The worker reuses the name "measure" so the log shows whether a name is registered once.
#include <thread>

#include "core/nvtx.hpp"

int main() {
  using kk3::nvtx::scoped_range;
  constexpr long long k_tokens = 64;
  const scoped_range sweep("sweep");
  const scoped_range family("copy_example");
  const scoped_range shape("T64", k_tokens);
  const scoped_range variant("vec_bytes16-unroll1-threads256", k_tokens);
  { const scoped_range measure("measure", k_tokens); }
  std::thread worker([] { const scoped_range measure("measure", k_tokens); });
  worker.join();
  { const scoped_range verify("verify"); }
  return 0;
}
