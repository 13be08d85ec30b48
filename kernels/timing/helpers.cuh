#pragma once
// Kernels the measurement engine launches around the variant under test. They are compiled
// by NVRTC like the variants (one program, several name expressions is not needed: each is a
// plain extern "C" kernel, so its name is not mangled).
#include "common/pdl.cuh"

__device__ __forceinline__ unsigned long long kk3_globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// The isolated and cold modes' gate: spins until the host sets *flag (pinned, mapped host
/// memory), so everything the host enqueues behind it (start event, variant, end event) is
/// already queued when the variant runs: host launch latency stays out of the interval.
/// Gives up after timeout_ns so a lost flag cannot hang the GPU.
extern "C" __global__ void kk3_gate(const volatile unsigned int* flag, unsigned long long timeout_ns) {
  const unsigned long long start = kk3_globaltimer_ns();
  while (*flag == 0u && kk3_globaltimer_ns() - start < timeout_ns) {
  }
}

/// SM clock probe: counts SM cycles against the global timer over `cycles` cycles and stores
/// (cycles, nanoseconds) in out[2 * slot], out[2 * slot + 1].
extern "C" __global__ void kk3_clock_probe(unsigned long long* out, unsigned int slot, unsigned long long cycles) {
  const unsigned long long t0 = kk3_globaltimer_ns();
  const long long c0 = clock64();
  long long c1 = c0;
  while (static_cast<unsigned long long>(c1 - c0) < cycles) c1 = clock64();
  const unsigned long long t1 = kk3_globaltimer_ns();
  if (threadIdx.x == 0) {
    out[2 * slot] = static_cast<unsigned long long>(c1 - c0);
    out[2 * slot + 1] = t1 - t0;
  }
}

/// Evicts L2 by reading `words` 16-byte words (a buffer larger than L2) with clean loads; the
/// store never happens in practice but keeps the loads alive.
extern "C" __global__ void kk3_l2_flush(const uint4* __restrict__ buf, unsigned long long words, uint4* sink) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const uint4 v = buf[i];
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  if (acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u && acc.z == 0xf39cc060u && acc.w == 0x5a5a5a5au) *sink = acc;
}

/// The chain mode's upstream producer: stands for the kernel launched before the variant (a
/// persistent GEMM in the families' models). Launched with the grid, threads and dynamic shared
/// memory of the model (the shared memory is only held, so that what fits beside it on an SM is
/// what fits beside the real kernel). Every CTA runs for `duration_cycles` SM cycles and triggers
/// its dependents once `trigger_cycles` have passed (at once for 0; never for ~0: the dependent
/// then launches when this grid has ended); the dependent's griddepcontrol.wait still waits for
/// the whole grid. It counts SM cycles, not %globaltimer, whose coarse updates would quantise
/// the length of every chain and with it the latency a variant adds.
extern "C" __global__ void kk3_producer(unsigned long long duration_cycles, unsigned long long trigger_cycles) {
  kk3_pdl_wait();
  if (trigger_cycles == 0) kk3_pdl_trigger();
  const long long start = clock64();
  bool triggered = trigger_cycles == 0;
  for (long long now = start; static_cast<unsigned long long>(now - start) < duration_cycles; now = clock64()) {
    if (!triggered && static_cast<unsigned long long>(now - start) >= trigger_cycles) {
      kk3_pdl_trigger();
      triggered = true;
    }
  }
  if (!triggered && trigger_cycles != ~0ull) kk3_pdl_trigger();
}

/// A buffer the consumer reads: `bytes` at `src`.
struct kk3_read_job {
  unsigned long long src, bytes;
};

/// The chain mode's downstream consumer: waits for the variant, then reads what the model says
/// it reads (the variant's outputs: `count` buffers), as the next kernel does, and ends. The
/// store never happens in practice but keeps the loads alive.
extern "C" __global__ void kk3_consumer(const kk3_read_job* jobs, int count, unsigned int* sink) {
  kk3_pdl_wait();
  const unsigned long long first = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned int acc = 0;
  for (int j = 0; j < count; ++j) {
    const uint4* src = reinterpret_cast<const uint4*>(jobs[j].src);
    const unsigned long long words = jobs[j].bytes / 16;  // device allocations are 256-byte aligned
    for (unsigned long long i = first; i < words; i += stride) {
      const uint4 v = src[i];
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0x9e3779b9u && first == 0) *sink = acc;
  kk3_pdl_trigger();
}

/// Times itself: spins for `duration_ns` and stores the %globaltimer time from its first to
/// its last instruction in *out: a kernel of known duration for checking the timing modes
/// (tests; bench/event_probe.cpp, in git at 4aa6637).
extern "C" __global__ void kk3_self_timed(unsigned long long duration_ns, unsigned long long* out) {
  const unsigned long long start = kk3_globaltimer_ns();
  unsigned long long now = start;
  while (now - start < duration_ns) now = kk3_globaltimer_ns();
  if (threadIdx.x == 0) *out = kk3_globaltimer_ns() - start;
}

/// One copy of the delayed producer: `bytes` from src to dst.
struct kk3_copy_job {
  unsigned long long dst, src, bytes;
};

/// The verifier's stand-in for the upstream kernel (PDL hazard check): triggers its dependents
/// at once, so the variant launches and runs whatever it does before griddepcontrol.wait
/// while this kernel waits `delay_ns`, and only then writes the upstream-produced inputs
/// (copies them from staging buffers over their poisoned device copies). A variant that
/// reads them before its wait reads poison.
extern "C" __global__ void kk3_delayed_producer(const kk3_copy_job* jobs, int count, unsigned long long delay_ns) {
  kk3_pdl_trigger();
  const unsigned long long start = kk3_globaltimer_ns();
  while (kk3_globaltimer_ns() - start < delay_ns) {
  }
  const unsigned long long first = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (int j = 0; j < count; ++j) {
    unsigned char* dst = reinterpret_cast<unsigned char*>(jobs[j].dst);
    const unsigned char* src = reinterpret_cast<const unsigned char*>(jobs[j].src);
    const unsigned long long words = jobs[j].bytes / 16;  // device allocations are 256-byte aligned
    for (unsigned long long i = first; i < words; i += stride) {
      reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
    }
    for (unsigned long long i = words * 16 + first; i < jobs[j].bytes; i += stride) dst[i] = src[i];
  }
}

/// The verifier's check that an input is untouched, on the device: lowers *first to the index of
/// the first byte where a and b differ (the caller sets it to ~0 first). a and b are device
/// allocations (256-byte aligned).
extern "C" __global__ void kk3_first_difference(const unsigned char* a, const unsigned char* b, unsigned long long bytes,
                                                unsigned long long* first) {
  const unsigned long long start = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long words = bytes / 16;
  for (unsigned long long i = start; i < words; i += stride) {
    const uint4 x = reinterpret_cast<const uint4*>(a)[i], y = reinterpret_cast<const uint4*>(b)[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) {
      unsigned long long at = i * 16;
      while (a[at] == b[at]) ++at;
      atomicMin(first, at);
    }
  }
  for (unsigned long long i = words * 16 + start; i < bytes; i += stride) {
    if (a[i] != b[i]) atomicMin(first, i);
  }
}

/// An empty kernel: what a launch itself costs (the result files' empty-kernel figure).
extern "C" __global__ void kk3_empty() {}
