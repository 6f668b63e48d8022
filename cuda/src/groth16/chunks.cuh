// The parameters' bases a chunk at a time, for proofs on the bounded-VRAM plan (plan.cuh):
// two device buffers of one chunk each, filled on a copy stream of their own from the
// page-locked host vectors, so that the next chunk's copy runs while the MSM of the current
// one computes. Resident parameters need no buffers: a chunk is then an address inside the
// device copy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "groth16/params.cuh"
#include "msm/msm.cuh"
#include "util/resources.cuh"

namespace cuzk::groth16 {

class base_loader_t {
public:
    // Chunks of at most `chunk` points of at most `point_bytes` bytes each, for MSMs enqueued
    // on `stream`. The buffers are allocated (stream-ordered) at the first load.
    base_loader_t(const params_t& p, size_t chunk, size_t point_bytes, cudaStream_t stream)
        : p_(p), chunk_(chunk), point_bytes_(point_bytes), stream_(stream) {}
    ~base_loader_t() {
        // A copy may still be filling a buffer when an exception unwinds the proof: the
        // buffers are freed on `stream_` only once it is done.
        cudaStreamSynchronize(copy_);
    }
    base_loader_t(const base_loader_t&) = delete;
    base_loader_t& operator=(const base_loader_t&) = delete;

    // Points lo .. lo + len of `v` on the device, for the work enqueued on the MSM's stream
    // from now until the next call.
    template <class A>
    const A* load(const query_vector_t<A>& v, size_t lo, size_t len) {
        CUZK_REQUIRE(lo + len <= v.len && len <= chunk_ && sizeof(A) <= point_bytes_,
                     "base loader: chunk outside the vector or larger than the buffers");
        if (p_.resident) return v.d + lo;
        if (!buf_[0].get()) {
            for (auto& b : buf_) b = dev_ptr_t<uint8_t>(chunk_ * point_bytes_, stream_);
            allocated_.record(stream_);
            CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy_, allocated_));
        }
        const unsigned i = next_, prev = i ^ 1;
        // Everything enqueued on the MSM's stream so far reads at most the other buffer: once
        // that has run, the other buffer may be filled again.
        if (used_[prev]) free_[prev].record(stream_);
        if (used_[i]) CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy_, free_[i]));
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(buf_[i].get(), v.host + lo, len * sizeof(A), cudaMemcpyHostToDevice, copy_));
        loaded_[i].record(copy_);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(stream_, loaded_[i]));
        used_[i] = true;
        next_ = prev;
        return reinterpret_cast<const A*>(buf_[i].get());
    }

    // `v` as a chunk source for the chunked MSMs (msm.cuh). Lives as long as this loader and `v`.
    template <class A>
    msm::chunk_source_t<A> source(const query_vector_t<A>& v) {
        return [this, &v](size_t lo, size_t len) { return load(v, lo, len); };
    }

    // The device memory the buffers take (none with resident parameters).
    static size_t bytes(const params_t& p, size_t chunk, size_t point_bytes) {
        return p.resident ? 0 : 2 * chunk * point_bytes;
    }

private:
    const params_t& p_;
    const size_t chunk_, point_bytes_;
    const cudaStream_t stream_;
    stream_t copy_;
    dev_ptr_t<uint8_t> buf_[2];
    event_t allocated_;
    // loaded_[i]: the last copy into buffer i is done; free_[i]: the last MSM reading it is.
    event_t loaded_[2], free_[2];
    bool used_[2] = {false, false};
    unsigned next_ = 0;
};

}  // namespace cuzk::groth16
