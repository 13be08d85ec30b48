#pragma once
// Programmatic dependent launch from NVRTC sources. NVRTC does not declare
// cudaGridDependencySynchronize / cudaTriggerProgrammaticLaunchCompletion, so use the PTX.
// Both are no-ops when the kernel was launched without the PDL attribute.
#include "fault_point.cuh"

/// Blocks until the grids this one depends on have completed and their writes are visible.
/// Nothing produced by the previous kernel may be read before this.
__device__ __forceinline__ void kk3_pdl_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  KK3_AFTER_PDL_WAIT();  // empty unless a test makes the variant slow (common/fault_injection.cuh)
}

/// Lets the next kernel on the stream start launching (it still waits for this grid's
/// completion at its own griddepcontrol.wait).
__device__ __forceinline__ void kk3_pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;"); }
