// The per-GPU locks object behind cuzk_gpu_locks_t (see cuzk/groth16.h): the memory lock, the
// compute lock and the VRAM budget that the workers of one device share.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "cuzk/groth16.h"
#include "groth16/staging.cuh"
#include "util/error.cuh"

namespace cuzk::groth16 {

// Bytes of VRAM handed out on one device: held ones (resident parameters and matrices, kept
// until their owner is destroyed) and a proof's working set (released when the proof ends).
// A working set that does not fit waits until others release theirs; one larger than what
// the held bytes leave of the budget is an error, at once or when a hold makes it so, since
// waiting could never end.
class vram_budget_t {
public:
    explicit vram_budget_t(size_t total) : total_(total) {}

    // A proof's working set: waits until it fits (see above). An urgent one is served first:
    // while one waits, ordinary working sets wait behind it even where they would fit.
    void reserve(size_t bytes, bool urgent = false);
    void release(size_t bytes);
    enum class hold_t { held, no_room, over_limit };
    // Holds `bytes` if they fit now and the held bytes stay at most `held_limit` (one
    // decision under the lock, so two holders cannot both pass the limit); given back with
    // release_held.
    hold_t try_hold(size_t bytes, size_t held_limit = SIZE_MAX);
    void release_held(size_t bytes);

    size_t total() const { return total_; }
    size_t reserved() const;
    size_t held() const;
    size_t peak() const;

private:
    const size_t total_;
    mutable std::mutex mu_;
    std::condition_variable freed_;
    size_t used_ = 0;  // held bytes included
    size_t held_ = 0;
    size_t urgent_waiting_ = 0;
    size_t peak_ = 0;
};

// A reservation that is released when it goes out of scope. The caller synchronizes its
// stream before that (the memory must really be back in the pool): `sync_before_release`
// does it in the destructor, so an exception thrown mid-proof cannot hand out memory that
// queued work still uses.
class reservation_t {
public:
    reservation_t(vram_budget_t& budget, size_t bytes, cudaStream_t sync_before_release, bool urgent = false)
        : budget_(budget), bytes_(bytes), stream_(sync_before_release) {
        budget_.reserve(bytes_, urgent);
    }
    ~reservation_t() {
        if (stream_) cudaStreamSynchronize(stream_);  // errors were reported by the proof itself
        budget_.release(bytes_);
    }
    reservation_t(const reservation_t&) = delete;
    reservation_t& operator=(const reservation_t&) = delete;

private:
    vram_budget_t& budget_;
    size_t bytes_;
    cudaStream_t stream_;
};

// One device allocation held from a budget until destroyed: what a resident parameter set or
// constraint-matrix set lives in. Held first and allocated second, and given back in full
// (allocation, hold) by the destructor, also when its owner's creation fails half-way.
class held_block_t {
public:
    enum class result_t { held, no_room, over_limit, alloc_failed };

    held_block_t() = default;
    ~held_block_t();
    held_block_t(const held_block_t&) = delete;
    held_block_t& operator=(const held_block_t&) = delete;

    // Holds `bytes` of `budget` (see vram_budget_t::try_hold) and allocates them on `device`;
    // on `alloc_failed`, `*error` is the CUDA error and nothing stays held. Once per block.
    result_t try_allocate(vram_budget_t& budget, int device, size_t bytes, size_t held_limit, cudaError_t* error);

    uint8_t* get() const { return static_cast<uint8_t*>(d_); }
    size_t bytes() const { return bytes_; }

private:
    vram_budget_t* budget_ = nullptr;
    int device_ = 0;
    void* d_ = nullptr;
    size_t bytes_ = 0;
};

// Where one circuit's results land on the host: pinned, so that the copies back are plain DMA
// ordered on the proof's own stream. A copy into pageable memory goes through the driver's
// staging path, shared by every stream of the context, which a thread's pageable copy holds
// while that copy waits for its stream's earlier kernels: an urgent proof's copies could then
// wait for the end of the ordinary proof's kernels: the wait the H200 GPU test
// urgent_proofs_overtake_running_kernels measured on 2026-12-03, gone with this landing
// (2026-12-04, docs/benchmarks.md).
struct results_landing_t {
    cuzk_groth16_sums_t sums;
    uint32_t unsatisfied;
    // The l, a and b_g1 splits' totals (witness_split.cuh's packed form) of a witness the GPU
    // splits: the MSMs' launch sizes.
    uint64_t split_totals[3];
};

}  // namespace cuzk::groth16

struct cuzk_gpu_locks {
    // Pinned staging: two buffers of this size per GPU.
    static constexpr size_t STAGING_CHUNK = size_t(32) << 20;

    explicit cuzk_gpu_locks(int dev, size_t budget)
        : device(dev),
          vram(budget),
          staging(STAGING_CHUNK),
          compute_staging(STAGING_CHUNK),
          urgent_staging(STAGING_CHUNK),
          compute_results(1),
          urgent_results(1) {}

    // The device this object serves; every call made under it selects it first.
    const int device;
    // Held while reserving VRAM and enqueuing a proof's uploads, so that one worker's staging
    // overlaps another's kernels, and two workers never split the copy bandwidth.
    std::mutex memory;
    // Held while a proof's kernels run, so that proofs take the whole GPU in turn.
    std::mutex compute;
    cuzk::groth16::vram_budget_t vram;
    // The pinned buffers that uploads go through; used only under `memory`.
    cuzk::groth16::upload_staging_t staging;
    // The same for the uploads a proof makes while it computes (c, on a card that holds only
    // two of a, b and c at once); used only under `compute`. Not `staging`: the memory lock
    // cannot be taken under the compute lock (a worker holding it may wait for VRAM that only
    // the computing proof gives back).
    cuzk::groth16::upload_staging_t compute_staging;
    // Held for the whole of an urgent proof (CUZK_PRIORITY_URGENT), which takes neither lock
    // above: its uploads go beside the ordinary proof's, and its kernels run on a stream of
    // the greatest priority beside the kernels that hold the compute lock, so that a
    // deadline-bound proof does not wait for a long one. One urgent proof at a time.
    std::mutex urgent;
    // The pinned buffers of the urgent proof's uploads (both phases); used only under `urgent`.
    cuzk::groth16::upload_staging_t urgent_staging;
    // Where a circuit's results land (see results_landing_t): one under `compute`, one under
    // `urgent`.
    cuzk::pinned_ptr_t<cuzk::groth16::results_landing_t> compute_results;
    cuzk::pinned_ptr_t<cuzk::groth16::results_landing_t> urgent_results;
    // Testing and benchmarks (cuzk_gpu_locks_force_chunks): with a non-zero chunk, every proof
    // takes the bounded-VRAM plan with at most this many points per chunk; with c_late also,
    // it holds only two of a, b and c at once.
    std::atomic<size_t> forced_chunk{0};
    std::atomic<bool> forced_c_late{false};
    // Counters reported by cuzk_gpu_locks_info.
    std::atomic<uint64_t> compute_busy_ns{0};
    std::atomic<uint64_t> proofs_done{0};
    std::atomic<uint64_t> proofs_failed{0};
};

namespace cuzk::groth16 {

// `locks`, or the process-wide locks of `device` when null (created on first use with the
// default budget, never destroyed).
cuzk_gpu_locks* locks_or_default(cuzk_gpu_locks* locks, int device);

// Holds the compute lock and adds the time it was held to the counter.
class compute_section_t {
public:
    explicit compute_section_t(cuzk_gpu_locks& locks) : locks_(locks), lock_(locks.compute) {
        start_ = std::chrono::steady_clock::now();
    }
    ~compute_section_t() {
        const auto held = std::chrono::steady_clock::now() - start_;
        locks_.compute_busy_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(held).count());
    }
    compute_section_t(const compute_section_t&) = delete;
    compute_section_t& operator=(const compute_section_t&) = delete;

private:
    cuzk_gpu_locks& locks_;
    std::lock_guard<std::mutex> lock_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace cuzk::groth16
