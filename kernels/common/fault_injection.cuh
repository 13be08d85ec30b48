#pragma once
// Test-only fault injection (issue 8): `kk3tune sweep --inject-fault VARIANT=KIND` compiles one
// variant with -DKK3_INJECT_FAULT=N, and its kernel then fails on purpose at its first line, so
// the tests can prove that a faulting or hanging variant never ends a sweep. Included only
// through common/fault_point.cuh under that define; not installed (the kernels that ship are
// exactly what they are without it).
//   1  illegal_address: thread 0 of block 0 stores to address 8 (a sticky illegal-address error)
//   2  trap: every thread executes trap (a sticky launch failure)
//   3  hang: every thread sleeps forever (the supervisor's --variant-timeout ends it)
//   4  slow: correct, but every thread spins KK3_SLOW_CYCLES (default 1000, about 0.5 us at the
//      H200's clock) after the PDL wait, where a chain cannot hide it behind its producer: a
//      regression made on purpose, for the CI regression job's proof that it fails
//      (results/h200/ci-regression-*)
#if defined(KK3_INJECT_FAULT) && KK3_INJECT_FAULT == 1
#define KK3_FAULT_POINT()                                                          \
  do {                                                                             \
    if (threadIdx.x == 0 && blockIdx.x == 0) *reinterpret_cast<volatile int*>(8) = 1; \
  } while (0)
#elif defined(KK3_INJECT_FAULT) && KK3_INJECT_FAULT == 2
#define KK3_FAULT_POINT() asm volatile("trap;")
#elif defined(KK3_INJECT_FAULT) && KK3_INJECT_FAULT == 3
#define KK3_FAULT_POINT()                       \
  do {                                          \
    for (;;) asm volatile("nanosleep.u32 1000;"); \
  } while (0)
#elif defined(KK3_INJECT_FAULT) && KK3_INJECT_FAULT == 4
#define KK3_FAULT_POINT() \
  do {                    \
  } while (0)
#ifndef KK3_SLOW_CYCLES
#define KK3_SLOW_CYCLES 1000
#endif
#define KK3_AFTER_PDL_WAIT()                                         \
  do {                                                               \
    const long long kk3_slow_start = clock64();                      \
    while (clock64() - kk3_slow_start < (KK3_SLOW_CYCLES)) {         \
    }                                                                \
  } while (0)
#else
#error "common/fault_injection.cuh: KK3_INJECT_FAULT must be 1, 2, 3 or 4 (include common/fault_point.cuh instead)"
#endif
