// The object behind cuzk_groth16_params_t: a parameter set's query vectors on one device (the
// four G1 ones and, when B's G2 sum may run on the GPU, b_g2), either resident (uploaded once,
// reserved from the budget) or streamed per proof from page-locked host memory.
#pragma once

#include <algorithm>
#include <array>
#include <memory>

#include "ec/g1.cuh"
#include "ec/g2.cuh"
#include "groth16/locks.cuh"
#include "util/resources.cuh"

namespace cuzk::groth16 {

// One query vector of affine points A (affine_t or g2_affine_t).
template <class A>
struct query_vector_t {
    // The caller's array; kept only while streaming (null once resident).
    const A* host = nullptr;
    size_t len = 0;
    // The device copy, inside params_t::block, when resident.
    A* d = nullptr;
    // Whether `host` was page-locked by us (and must be unregistered).
    bool pinned = false;

    size_t bytes() const { return len * sizeof(A); }
};
using g1_vector_t = query_vector_t<affine_t>;
using g2_vector_t = query_vector_t<g2_affine_t>;

}  // namespace cuzk::groth16

struct cuzk_groth16_params {
    int device = 0;
    cuzk_gpu_locks* locks = nullptr;
    cuzk::groth16::g1_vector_t h, l, a, b_g1;
    // Empty when B's G2 sum always runs on the CPU; otherwise as long as b_g1 (both are
    // indexed by B's densities, so the G1 split serves both).
    cuzk::groth16::g2_vector_t b_g2;
    bool resident = false;
    // H's shifted copies (msm_device's `copies`) when resident and the budget leaves room
    // (make_params): h_copies points 2^(h_window j) H_i, j < h_copies, in the block from h.d on;
    // h_copies = 1 (and h_window 0, the planned window) without them.
    uint32_t h_window = 0, h_copies = 1;
    // One allocation holding every resident vector, held from the device's budget.
    cuzk::groth16::held_block_t block;

    std::array<cuzk::groth16::g1_vector_t*, 4> g1_vectors() { return {&h, &l, &a, &b_g1}; }
    std::array<const cuzk::groth16::g1_vector_t*, 4> g1_vectors() const { return {&h, &l, &a, &b_g1}; }
    // All vectors' bytes, and the largest one's (the streaming buffer's size).
    size_t bytes() const;
    size_t largest_bytes() const;

    // The device copy of `v`: the resident one, or `v` copied into `staging` on `stream`
    // (allocated there on first use, large enough for every vector; the MSMs using it run
    // one after another on that stream, so one buffer serves them all).
    template <class A>
    const A* bases(const cuzk::groth16::query_vector_t<A>& v, cuzk::dev_ptr_t<uint8_t>& staging,
                   cudaStream_t stream) const {
        if (resident) return v.d;
        if (v.len == 0) return nullptr;
        if (staging.size() < v.bytes()) staging = cuzk::dev_ptr_t<uint8_t>(largest_bytes(), stream);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(staging.get(), v.host, v.bytes(), cudaMemcpyHostToDevice, stream));
        return reinterpret_cast<const A*>(staging.get());
    }

    cuzk_groth16_params() = default;
    ~cuzk_groth16_params();
    cuzk_groth16_params(const cuzk_groth16_params&) = delete;
    cuzk_groth16_params& operator=(const cuzk_groth16_params&) = delete;
};

namespace cuzk::groth16 {
using params_t = cuzk_groth16_params;
}  // namespace cuzk::groth16
