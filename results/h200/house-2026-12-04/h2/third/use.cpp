#include <kk3tune/dispatch/expert_scale.h>
#include <cstdio>
#include <initializer_list>
namespace d = kk3tune::dispatch::expert_scale;
int main() {
  static_assert(d::is_tuned(90), "the sm_90 tables come from the sweep");
  for (int e : {2, 8}) {
    for (long long t : {1LL, 64LL, 4096LL}) {
      const d::knobs k = d::select(d::mode::bf16, e, t);
      std::printf("experts=%d T=%lld: VEC=%d THREADS=%d ROWS=%d\n", e, t, k.VEC, k.THREADS, k.ROWS);
    }
  }
  return 0;
}
