// The end of step 4 and step 5 of the MSM on a CPU core, in stream order: the reduction's row
// sums are copied to pinned host memory, a host function on the stream forms each window's sum
// from them (msm/reduction.cuh's window_sum) and combines the windows (msm/combine.cuh), on the
// host field of ff/host_mont.cuh, and the result is copied to the caller's device pointer, so
// that callers see the same contract as a kernel's: *d_out is written when the stream gets
// there.
//
// Why on the host: both are chains of dependent operations. The combination is c (W - 1)
// doublings: on one GPU thread it took about 2 ms for G1 and 8 ms for G2 at 20-bit windows, in
// Nsight Compute's sum 5.2 of a sha 2^22 proof's 53.5 ms of kernel time (docs/benchmarks.md,
// 2026-12-06); a window's sum is about 25 operations, and its one-warp kernel took 0.37 ms of
// a sha 2^22 proof's 41.3. On a CPU core with 64-bit products they are a fraction of that, and
// the GPU is free for the next MSM.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "msm/combine.cuh"
#include "msm/msm.cuh"
#include "msm/reduction.cuh"

namespace cuzk::msm {

// The most windows a combination takes: 256-bit signed digits in the narrowest window (4 bits).
constexpr uint32_t MAX_COMBINED_WINDOWS = 64;

// The pinned host memory of one combination in flight: what the stream copies in, what the host
// function reads and writes, and what the stream copies out. Sized for the larger group (G2).
struct alignas(64) combine_slot_t {
    uint32_t num_windows = 0, c = 0;
    level_shifts_t levels{};
    // Row k < levels.count: the row sums Q_k of level k, one a window; row levels.count: the
    // last level's elements, one a window (msm_device's q).
    alignas(16) unsigned char rows[MAX_ROW_SUMS * sizeof(g2_xyzz_t)];
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

// The host function of a G combination: reads the slot's row sums, writes its result.
template <class G>
void CUDART_CB combine_in_slot(void* data) {
    using X = typename G::host_xyzz;
    auto* slot = static_cast<combine_slot_t*>(data);
    const uint32_t windows = slot->num_windows;
    X rows[MAX_ROW_SUMS], sums[MAX_COMBINED_WINDOWS];
    std::memcpy(rows, slot->rows, size_t(slot->levels.count + 1) * windows * sizeof(X));
    const X* top = rows + size_t(slot->levels.count) * windows;
    for (uint32_t w = 0; w < windows; w++) sums[w] = window_sum(rows, top, slot->levels, windows, w);
    const typename X::jacobian_t result = combine_windows(sums, windows, slot->c);
    std::memcpy(slot->result, &result, sizeof(result));
}

void CUDART_CB give_slot_back(void* data);

// Enqueues on `stream`: *d_out = sum_w 2^(c w) W_w, in blst's Jacobian layout, with W_w the
// window sum msm/reduction.cuh's window_sum forms from d_rows ((levels.count + 1) rows of
// num_windows points, as msm_device's q). d_rows must stay valid until the stream has copied
// it (free it on `stream`).
template <class G>
void combine_on_host(const typename G::xyzz* d_rows, const level_shifts_t& levels, uint32_t num_windows, uint32_t c,
                     typename G::jacobian* d_out, cudaStream_t stream) {
    using X = typename G::host_xyzz;
    static_assert(sizeof(X) == sizeof(typename G::xyzz), "the host and device points must have one layout");
    static_assert(sizeof(typename X::jacobian_t) == sizeof(typename G::jacobian), "and their results too");
    static_assert(sizeof(typename G::xyzz) <= sizeof(g2_xyzz_t), "a slot holds G2's points");
    CUZK_REQUIRE(num_windows >= 1 && num_windows <= MAX_COMBINED_WINDOWS,
                 "msm: " + std::to_string(num_windows) + " windows to combine, outside 1.." +
                     std::to_string(MAX_COMBINED_WINDOWS));
    const size_t rows = size_t(levels.count + 1) * num_windows;
    CUZK_REQUIRE(levels.count >= 1 && levels.count <= MAX_LEVELS && rows <= MAX_ROW_SUMS,
                 "msm: " + std::to_string(levels.count) + " reduction levels of " + std::to_string(num_windows) +
                     " windows, more row sums than a combination holds (" + std::to_string(MAX_ROW_SUMS) +
                     ")");
    combine_slot_t* slot = combine_slots().take();
    slot->num_windows = num_windows;
    slot->c = c;
    slot->levels = levels;
    const cudaError_t copied =
        cudaMemcpyAsync(slot->rows, d_rows, rows * sizeof(typename G::xyzz), cudaMemcpyDeviceToHost, stream);
    if (copied != cudaSuccess) combine_slots().give(slot);  // nothing on the stream uses it yet
    CUZK_CUDA_CHECK(copied);
    // From here a failure leaves the slot out of the pool: the stream may still touch it.
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, combine_in_slot<G>, slot));
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(d_out, slot->result, sizeof(typename G::jacobian), cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, give_slot_back, slot));
}

}  // namespace cuzk::msm
