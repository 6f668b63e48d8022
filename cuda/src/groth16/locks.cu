// The per-GPU locks and VRAM budget, and their C entry points (cuzk/groth16.h).
#include <algorithm>
#include <map>
#include <memory>
#include <thread>

#include "groth16/locks.cuh"
#include "ntt/ntt.cuh"

namespace cuzk::groth16 {

void vram_budget_t::reserve(size_t bytes, bool urgent) {
    std::unique_lock<std::mutex> lock(mu_);
    if (urgent) urgent_waiting_++;
    freed_.wait(lock, [&] {
        return (used_ + bytes <= total_ && (urgent || urgent_waiting_ == 0)) || bytes > total_ - held_;
    });
    if (urgent) {
        urgent_waiting_--;
        // Ordinary working sets that fit were waiting behind this one.
        freed_.notify_all();
    }
    if (bytes > total_ - held_)
        throw invalid_argument("a proof needs " + std::to_string(bytes >> 20) + " MiB of VRAM, more than the " +
                               std::to_string((total_ - held_) >> 20) + " MiB its GPU's budget of " +
                               std::to_string(total_ >> 20) +
                               " MiB leaves beside the resident parameters and matrices");
    used_ += bytes;
    peak_ = std::max(peak_, used_);
}

void vram_budget_t::release(size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        used_ -= std::min(used_, bytes);
    }
    freed_.notify_all();
}

vram_budget_t::hold_t vram_budget_t::try_hold(size_t bytes, size_t held_limit) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (held_ + bytes > held_limit) return hold_t::over_limit;
        if (used_ + bytes > total_) return hold_t::no_room;
        used_ += bytes;
        held_ += bytes;
        peak_ = std::max(peak_, used_);
    }
    // Waiting proofs that can no longer ever fit must hear it and fail.
    freed_.notify_all();
    return hold_t::held;
}

void vram_budget_t::release_held(size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        held_ -= std::min(held_, bytes);
        used_ -= std::min(used_, bytes);
    }
    freed_.notify_all();
}

held_block_t::result_t held_block_t::try_allocate(vram_budget_t& budget, int device, size_t bytes,
                                                  size_t held_limit, cudaError_t* error) {
    switch (budget.try_hold(bytes, held_limit)) {
        case vram_budget_t::hold_t::held: break;
        case vram_budget_t::hold_t::no_room: return result_t::no_room;
        case vram_budget_t::hold_t::over_limit: return result_t::over_limit;
    }
    // device-wide-ok: once per parameter or matrix set, when it is put on the device
    const cudaError_t err = cudaMalloc(&d_, bytes);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        d_ = nullptr;
        budget.release_held(bytes);
        if (error) *error = err;
        return result_t::alloc_failed;
    }
    budget_ = &budget;
    device_ = device;
    bytes_ = bytes;
    return result_t::held;
}

held_block_t::~held_block_t() {
    if (!d_) return;
    // Teardown, not the proving path: the plain cudaFree (which waits for the device) is fine.
    cudaSetDevice(device_);
    cudaFree(d_);  // device-wide-ok: teardown
    budget_->release_held(bytes_);
}

size_t vram_budget_t::held() const {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
}

size_t vram_budget_t::reserved() const {
    std::lock_guard<std::mutex> lock(mu_);
    return used_;
}

size_t vram_budget_t::peak() const {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
}

namespace {

// Keeps the device's stream-ordered pool from making one proof's stream wait for another's.
// By default an allocation may take a block that another stream has freed but not yet reached
// (a proof enqueues all its kernels and their scratch frees at once, then waits), adding a
// dependency on that stream, so that an urgent proof's allocations could wait for the end of
// the ordinary proof running beside it, whatever its stream's priority. Without those
// dependencies a block freed on another stream is reused only once that free has run, and the
// pool grows otherwise; the VRAM budget already counts each proof's working set in full. (On
// the H200 urgent proofs still waited for a running proof with this set, 2026-12-03: the GPU
// test urgent_proofs_overtake_running_kernels and docs/benchmarks.md.)
void separate_streams_in_pool(int device) {
    cudaMemPool_t pool;
    CUZK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    int allow = 0;
    CUZK_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &allow));
}

// Builds the locks of `device`: selects it, measures the budget, makes the NTT tables and
// sets the pool to keep what it is given (so that scratch allocations on the proving path are
// served from the pool, with no driver call that would wait for the whole device).
std::unique_ptr<cuzk_gpu_locks> make_locks(int device, size_t budget) {
    int count = 0;
    CUZK_CUDA_CHECK(cudaGetDeviceCount(&count));
    CUZK_REQUIRE(device >= 0 && device < count,
                 "no CUDA device " + std::to_string(device) + " (this machine has " + std::to_string(count) + ")");
    CUZK_CUDA_CHECK(cudaSetDevice(device));
    ntt::warm_up();
    keep_freed_pool_memory(device);
    separate_streams_in_pool(device);
    if (budget == 0) {
        size_t free_bytes = 0, total_bytes = 0;
        CUZK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        const size_t margin = total_bytes / 20 + (size_t(512) << 20);
        budget = free_bytes > margin ? free_bytes - margin : 0;
        CUZK_REQUIRE(budget > 0, "GPU " + std::to_string(device) + " has no free memory to prove with");
    }
    return std::make_unique<cuzk_gpu_locks>(device, budget);
}

}  // namespace

cuzk_gpu_locks* locks_or_default(cuzk_gpu_locks* locks, int device) {
    if (locks) return locks;
    static std::mutex mu;
    static std::map<int, std::unique_ptr<cuzk_gpu_locks>> per_device;
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = per_device[device];
    if (!slot) slot = make_locks(device, 0);
    return slot.get();
}

}  // namespace cuzk::groth16

using namespace cuzk;

extern "C" cuzk_error_t create_gpu_locks(int device, size_t vram_budget, cuzk_gpu_locks_t** out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "create_gpu_locks: null output");
        *out = groth16::make_locks(device, vram_budget).release();
    });
}

extern "C" void destroy_gpu_locks(cuzk_gpu_locks_t* locks) { delete locks; }

extern "C" cuzk_error_t cuzk_gpu_locks_info(const cuzk_gpu_locks_t* locks, int device, cuzk_gpu_locks_info_t* out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "gpu locks info: null output");
        const cuzk_gpu_locks* l = groth16::locks_or_default(const_cast<cuzk_gpu_locks*>(locks), device);
        out->device = l->device;
        out->vram_budget = l->vram.total();
        out->vram_reserved = l->vram.reserved();
        out->vram_peak = l->vram.peak();
        out->compute_busy_ns = l->compute_busy_ns.load();
        out->proofs_done = l->proofs_done.load();
        out->proofs_failed = l->proofs_failed.load();
    });
}

extern "C" cuzk_error_t cuzk_gpu_locks_force_chunks(cuzk_gpu_locks_t* locks, size_t chunk_points, int c_late) {
    return guard([&] {
        CUZK_REQUIRE(locks != nullptr, "gpu locks force chunks: null locks");
        CUZK_REQUIRE(chunk_points > 0 || !c_late, "gpu locks force chunks: c_late needs a chunk size");
        // A multiple of 64: chunks split the ones' bitmaps at word boundaries.
        locks->forced_chunk = (chunk_points + 63) / 64 * 64;
        locks->forced_c_late = c_late != 0;
    });
}

extern "C" cuzk_error_t cuzk_gpu_locks_hold_compute(cuzk_gpu_locks_t* locks, uint32_t ms) {
    return guard([&] {
        CUZK_REQUIRE(locks != nullptr, "gpu locks hold compute: null locks");
        groth16::compute_section_t held(*locks);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    });
}
