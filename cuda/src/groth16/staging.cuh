// Host-to-device copies of pageable memory (a proof's a, b, c and scalars, which come from
// ordinary Rust vectors) at close to pinned speed. A plain cudaMemcpyAsync from pageable
// memory goes through the driver's own small staging buffer, one CPU thread and one chunk at
// a time, shared by every stream; here the data goes through two large pinned buffers that
// several CPU threads fill while the other buffer's DMA runs, small copies included.
//
// One object per GPU, owned by its locks and used only under the memory lock (so by one
// worker at a time).
#pragma once

#include <cstddef>

#include "util/resources.cuh"

namespace cuzk::groth16 {

class upload_staging_t {
public:
    // Allocates the two pinned buffers (at start-up: pinned allocations are slow).
    explicit upload_staging_t(size_t chunk_bytes);

    // Enqueues d_dst <- src (`bytes`) on `stream`. Returns when `src` is no longer read (the
    // last DMA may still be running; later work on `stream` is ordered after it).
    void upload(void* d_dst, const void* src, size_t bytes, cudaStream_t stream);

private:
    // Copies `bytes` from `src` to `dst` with several threads.
    void parallel_copy(void* dst, const void* src, size_t bytes) const;

    size_t chunk_;
    unsigned threads_;
    pinned_ptr_t<unsigned char> buf_[2];
    event_t drained_[2];  // the DMA out of buffer i has finished
    bool pending_[2] = {false, false};
    int next_ = 0;  // the buffer the next chunk goes through
};

}  // namespace cuzk::groth16
