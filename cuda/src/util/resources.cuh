// RAII owners for device memory, pinned host memory, streams and events.
//
// Each owner frees in its destructor and is move-only, so an exception thrown half-way
// through an entry point releases everything acquired so far. Destructors never throw:
// a failure to free during unwinding is ignored (the original error is the one to report).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "util/error.cuh"

namespace cuzk {

// Sets the default stream-ordered memory pool of `device` to keep the memory freed into it
// instead of giving it back to the driver at synchronization points: later allocations are
// served from the pool with no driver call that would wait for the whole device (provers), and
// timings measure kernels rather than re-mapping of scratch memory (benchmarks).
inline void keep_freed_pool_memory(int device) {
    cudaMemPool_t pool;
    CUZK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    uint64_t keep = UINT64_MAX;
    CUZK_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

// A CUDA stream owned by the caller of the kernels (one per worker).
class stream_t {
public:
    stream_t() { CUZK_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    // A stream of the given scheduling priority (lower numbers are more urgent; see
    // greatest_priority): the blocks of its kernels are dispatched before those of streams
    // with a lower priority that are waiting for the same multiprocessors.
    explicit stream_t(int priority) {
        CUZK_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
    }
    // The most urgent priority the current device gives a stream.
    static int greatest_priority() {
        int least = 0, greatest = 0;
        CUZK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        return greatest;
    }
    ~stream_t() {
        if (s_) cudaStreamDestroy(s_);
    }
    stream_t(const stream_t&) = delete;
    stream_t& operator=(const stream_t&) = delete;
    stream_t(stream_t&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}

    operator cudaStream_t() const { return s_; }
    void sync() const { CUZK_CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

// A CUDA event, with timing enabled (used for benchmarks and cross-stream waits).
class event_t {
public:
    event_t() { CUZK_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~event_t() {
        if (e_) cudaEventDestroy(e_);
    }
    event_t(const event_t&) = delete;
    event_t& operator=(const event_t&) = delete;
    event_t(event_t&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}

    operator cudaEvent_t() const { return e_; }
    void record(cudaStream_t s) { CUZK_CUDA_CHECK(cudaEventRecord(e_, s)); }
    void sync() const { CUZK_CUDA_CHECK(cudaEventSynchronize(e_)); }
    // Milliseconds from `start` to this event; both must have completed.
    float since(const event_t& start) const {
        float ms = 0;
        CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
        return ms;
    }

private:
    cudaEvent_t e_ = nullptr;
};

// Makes `waiter` wait for the work enqueued on `on` so far (an event between the two streams;
// neither the host nor other streams wait).
inline void wait_for(cudaStream_t waiter, cudaStream_t on) {
    cudaEvent_t e = nullptr;
    CUZK_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(e, on);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(waiter, e, 0);
    cudaEventDestroy(e);  // the wait keeps what it needs
    CUZK_CUDA_CHECK(err);
}

// `count` elements of T in device memory, allocated stream-ordered on `stream` (no device-wide
// synchronization) and freed on the same stream.
template <class T>
class dev_ptr_t {
public:
    dev_ptr_t() = default;
    dev_ptr_t(size_t count, cudaStream_t stream) : count_(count), stream_(stream) {
        if (count) CUZK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p_), count * sizeof(T), stream));
    }
    ~dev_ptr_t() {
        if (p_) cudaFreeAsync(p_, stream_);
    }
    dev_ptr_t(const dev_ptr_t&) = delete;
    dev_ptr_t& operator=(const dev_ptr_t&) = delete;
    dev_ptr_t(dev_ptr_t&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)), stream_(o.stream_) {}
    dev_ptr_t& operator=(dev_ptr_t&& o) noexcept {
        if (this != &o) {
            if (p_) cudaFreeAsync(p_, stream_);
            p_ = std::exchange(o.p_, nullptr);
            count_ = std::exchange(o.count_, 0);
            stream_ = o.stream_;
        }
        return *this;
    }

    // Frees the memory now (stream-ordered: work already enqueued on the stream still sees
    // it), so that a later stage can reuse it; the owner is then empty.
    void release() { *this = dev_ptr_t(); }
    // Frees on `stream` instead, for memory whose last reader is enqueued there (a stream that
    // waits for the work of the allocating one, see wait_for).
    void free_on(cudaStream_t stream) { stream_ = stream; }

    T* get() const { return p_; }
    operator T*() const { return p_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

private:
    T* p_ = nullptr;
    size_t count_ = 0;
    cudaStream_t stream_ = nullptr;
};

// Page-locks a caller's host buffer for the life of this object, so that copies to and from it
// run at full speed. Registering waits for the device: for benchmarks and parameter generation,
// never on the proving path. A read-only buffer is registered as such (the GPU only reads it).
// With `required` false a refusal (a read-only mapping, a system limit) is not an error: the
// copies then go through the driver's staging buffers, slower but correct.
class host_pin_t {
public:
    host_pin_t(const void* p, size_t bytes, bool read_only = false, bool required = true) {
        if (bytes == 0) return;
        void* const host = const_cast<void*>(p);
        const unsigned flags = read_only ? cudaHostRegisterReadOnly : cudaHostRegisterDefault;
        if (required) {
            // device-wide-ok: benchmarks and parameter generation only (see above)
            CUZK_CUDA_CHECK(cudaHostRegister(host, bytes, flags));
            p_ = host;
        } else if (cudaHostRegister(host, bytes, flags) == cudaSuccess) {  // device-wide-ok: as above
            p_ = host;
        } else {
            (void)cudaGetLastError();
        }
    }
    ~host_pin_t() {
        if (p_) cudaHostUnregister(p_);  // device-wide-ok: as the registration
    }
    host_pin_t(const host_pin_t&) = delete;
    host_pin_t& operator=(const host_pin_t&) = delete;

private:
    void* p_ = nullptr;
};

// `count` elements of T in pinned (page-locked) host memory: full-speed async copies.
template <class T>
class pinned_ptr_t {
public:
    explicit pinned_ptr_t(size_t count) : count_(count) {
        // device-wide-ok: pinned buffers are made when a GPU's locks are created, not per proof
        if (count) CUZK_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), count * sizeof(T)));
    }
    ~pinned_ptr_t() {
        if (p_) cudaFreeHost(p_);  // device-wide-ok: teardown
    }
    pinned_ptr_t(const pinned_ptr_t&) = delete;
    pinned_ptr_t& operator=(const pinned_ptr_t&) = delete;
    pinned_ptr_t(pinned_ptr_t&& o) noexcept
        : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)) {}

    T* get() const { return p_; }
    T& operator[](size_t i) const { return p_[i]; }
    size_t size() const { return count_; }

private:
    T* p_ = nullptr;
    size_t count_ = 0;
};

}  // namespace cuzk
