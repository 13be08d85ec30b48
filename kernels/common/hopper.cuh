#pragma once
// Hopper (sm_90+) building blocks written as PTX, for NVRTC sources: thread-block clusters and
// their distributed shared memory, mbarriers with transaction counts, bulk asynchronous copies and
// L2 prefetches. Nothing here knows a family; a kernel includes it and picks what it needs.

namespace kk3_hopper {

/// This CTA's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Every thread of every CTA of the cluster arrives; shared-memory writes before it are visible
/// to the peers after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

/// The block barrier of one CTA (B = 1), or of the whole cluster of B CTAs.
template <int B>
__device__ __forceinline__ void barrier() {
  if constexpr (B == 1) {
    __syncthreads();
  } else {
    cluster_sync();
  }
}

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The float at `local` (an address of this CTA's shared memory) in CTA `rank` of a cluster of B.
template <int B>
__device__ __forceinline__ float load_shared(const float* local, int rank) {
  if constexpr (B == 1) {
    return *local;
  } else {
    unsigned remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(local)), "r"(rank));
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    return v;
  }
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
}

__device__ __forceinline__ void mbarrier_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
}

/// Waits until the phase of `bar` with the given parity (0 for its first use, then 1, 0, ...)
/// has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned ready = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(ready)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!ready);
}

/// Copies `bytes` (a multiple of 16) from global to shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_address(dst)),
      "l"(src), "r"(bytes), "r"(smem_address(bar))
      : "memory");
}

/// Asks for `bytes` (a multiple of 16, from a 16-byte aligned address) of global memory to be
/// brought into L2, without waiting and without a register to land in.
__device__ __forceinline__ void prefetch_l2(const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

/// Orders this thread's generic-proxy accesses to shared memory before later bulk copies.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

}  // namespace kk3_hopper
