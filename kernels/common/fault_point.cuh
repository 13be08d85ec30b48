#pragma once
// KK3_FAULT_POINT(): nothing in every shipped build. Only `kk3tune sweep --inject-fault`
// (tests) defines KK3_INJECT_FAULT; then the test-only common/fault_injection.cuh, which is
// neither installed nor shipped, makes that one variant fail on purpose.
// KK3_AFTER_PDL_WAIT(): likewise empty, run by kk3_pdl_wait() once the wait is over.
#if defined(KK3_INJECT_FAULT)
#include "fault_injection.cuh"
#else
#define KK3_FAULT_POINT() \
  do {                    \
  } while (0)
#endif
#ifndef KK3_AFTER_PDL_WAIT
#define KK3_AFTER_PDL_WAIT() \
  do {                       \
  } while (0)
#endif
