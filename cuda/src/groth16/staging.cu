// Pinned double-buffered uploads (see staging.cuh).
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "groth16/staging.cuh"

namespace cuzk::groth16 {

upload_staging_t::upload_staging_t(size_t chunk_bytes)
    : chunk_(chunk_bytes),
      threads_(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u)),
      buf_{pinned_ptr_t<unsigned char>(chunk_bytes), pinned_ptr_t<unsigned char>(chunk_bytes)} {}

void upload_staging_t::parallel_copy(void* dst, const void* src, size_t bytes) const {
    const unsigned n = bytes >= (size_t(4) << 20) ? threads_ : 1;
    if (n == 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    // Slices rounded to 4 KiB so that no two threads write the same page.
    const size_t slice = ((bytes + n - 1) / n + 4095) & ~size_t(4095);
    auto copy = [=](size_t begin, size_t len) {
        std::memcpy(static_cast<unsigned char*>(dst) + begin, static_cast<const unsigned char*>(src) + begin, len);
    };
    std::vector<std::thread> pool;
    pool.reserve(n);
    size_t done = 0;  // bytes handed to threads (or copied here when a thread cannot start)
    try {
        for (unsigned t = 1; t < n && done + slice < bytes; t++) {
            pool.emplace_back(copy, done, slice);
            done += slice;
        }
    } catch (...) {
        // No thread to spare: the rest is copied on this one. A joinable std::thread must
        // never be destroyed, so every started one is joined below either way.
    }
    copy(done, bytes - done);
    for (auto& th : pool) th.join();
}

void upload_staging_t::upload(void* d_dst, const void* src, size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return;
    // Small copies too: a copy from pageable memory goes through the driver's staging path,
    // which every stream of the context shares (see results_landing_t in locks.cuh).
    // Buffers alternate across calls too, so that a run of small copies does not wait for
    // each one's DMA before the next.
    int& next = next_;
    for (size_t off = 0; off < bytes; off += chunk_, next ^= 1) {
        const size_t len = std::min(chunk_, bytes - off);
        if (pending_[next]) drained_[next].sync();  // its previous DMA is done
        parallel_copy(buf_[next].get(), static_cast<const unsigned char*>(src) + off, len);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(d_dst) + off, buf_[next].get(), len,
                                        cudaMemcpyHostToDevice, stream));
        drained_[next].record(stream);
        pending_[next] = true;
    }
}

}  // namespace cuzk::groth16
