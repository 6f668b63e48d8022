// Step 5 of the MSM on a CPU core, in stream order: the window sums are copied to pinned host
// memory, a host function on the stream combines them (msm/combine.cuh, on the host field of
// ff/host_mont.cuh), and the result is copied to the caller's device pointer, so that callers
// see the same contract as a kernel's: *d_out is written when the stream gets there.
//
// Why on the host: the combination is one chain of c (W - 1) dependent doublings. On one GPU
// thread that took about 2 ms for G1 and 8 ms for G2 at 20-bit windows, and in Nsight
// Compute's sum 5.2 of a sha 2^22 proof's 53.5 ms of kernel time (docs/benchmarks.md,
// 2026-12-06); on a CPU core with 64-bit products it is a fraction of that, and the GPU is
// free for the next MSM.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "msm/combine.cuh"
#include "msm/msm.cuh"

namespace cuzk::msm {

// The most windows a combination takes: 256-bit signed digits in the narrowest window (4 bits).
constexpr uint32_t MAX_COMBINED_WINDOWS = 64;

// The pinned host memory of one combination in flight: what the stream copies in, what the host
// function reads and writes, and what the stream copies out. Sized for the larger group (G2).
struct alignas(64) combine_slot_t {
    uint32_t num_windows = 0, c = 0;
    alignas(16) unsigned char windows[MAX_COMBINED_WINDOWS * sizeof(g2_xyzz_t)];
    alignas(16) unsigned char result[sizeof(g2_jacobian_t)];
};

// A process-wide pool of slots. A slot is allocated the first time none is free and reused
// ever after, so that the steady state allocates no pinned memory (an allocation that may
// wait on the driver); the pool holds as many slots as combinations were ever in flight at
// once. Slots are never freed: their memory goes with the process.
class combine_slots_t {
public:
    // A free slot, or a new one; throws cuda_error when pinned memory cannot be allocated.
    combine_slot_t* take();
    // Returns a slot to the pool; called from a host function, so it makes no CUDA call and
    // never allocates (take() reserved the room).
    void give(combine_slot_t* slot) noexcept;

private:
    std::mutex mutex_;
    std::vector<combine_slot_t*> free_;
    size_t allocated_ = 0;
};

combine_slots_t& combine_slots();

// The host function of a G combination: reads the slot's window sums, writes its result.
template <class G>
void CUDART_CB combine_in_slot(void* data) {
    using X = typename G::host_xyzz;
    auto* slot = static_cast<combine_slot_t*>(data);
    X windows[MAX_COMBINED_WINDOWS];
    std::memcpy(windows, slot->windows, slot->num_windows * sizeof(X));
    const typename X::jacobian_t result = combine_windows(windows, slot->num_windows, slot->c);
    std::memcpy(slot->result, &result, sizeof(result));
}

void CUDART_CB give_slot_back(void* data);

// Enqueues on `stream`: *d_out = sum_w 2^(c w) d_windows[w], in blst's Jacobian layout.
// d_windows must stay valid until the stream has copied it (free it on `stream`).
template <class G>
void combine_on_host(const typename G::xyzz* d_windows, uint32_t num_windows, uint32_t c,
                     typename G::jacobian* d_out, cudaStream_t stream) {
    using X = typename G::host_xyzz;
    static_assert(sizeof(X) == sizeof(typename G::xyzz), "the host and device points must have one layout");
    static_assert(sizeof(typename X::jacobian_t) == sizeof(typename G::jacobian), "and their results too");
    static_assert(sizeof(typename G::xyzz) <= sizeof(g2_xyzz_t), "a slot holds G2's points");
    CUZK_REQUIRE(num_windows >= 1 && num_windows <= MAX_COMBINED_WINDOWS,
                 "msm: " + std::to_string(num_windows) + " windows to combine, outside 1.." +
                     std::to_string(MAX_COMBINED_WINDOWS));
    combine_slot_t* slot = combine_slots().take();
    slot->num_windows = num_windows;
    slot->c = c;
    const cudaError_t copied = cudaMemcpyAsync(slot->windows, d_windows, num_windows * sizeof(typename G::xyzz),
                                               cudaMemcpyDeviceToHost, stream);
    if (copied != cudaSuccess) combine_slots().give(slot);  // nothing on the stream uses it yet
    CUZK_CUDA_CHECK(copied);
    // From here a failure leaves the slot out of the pool: the stream may still touch it.
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, combine_in_slot<G>, slot));
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(d_out, slot->result, sizeof(typename G::jacobian), cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, give_slot_back, slot));
}

}  // namespace cuzk::msm
