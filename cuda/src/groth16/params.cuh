// The object behind cuzk_groth16_params_t: a parameter set's G1 vectors on one device, either
// resident (uploaded once, reserved from the budget) or streamed per proof from page-locked
// host memory.
#pragma once

#include <algorithm>
#include <array>
#include <memory>

#include "ec/g1.cuh"
#include "groth16/locks.cuh"
#include "util/resources.cuh"

namespace cuzk::groth16 {

struct g1_vector_t {
    // The caller's array; kept only while streaming (null once resident).
    const affine_t* host = nullptr;
    size_t len = 0;
    // The device copy, inside params_t::d_block, when resident.
    affine_t* d = nullptr;
    // Whether `host` was page-locked by us (and must be unregistered).
    bool pinned = false;
};

}  // namespace cuzk::groth16

struct cuzk_groth16_params {
    int device = 0;
    cuzk_gpu_locks* locks = nullptr;
    cuzk::groth16::g1_vector_t h, l, a, b_g1;
    bool resident = false;
    // One allocation holding every resident vector, and the bytes reserved for it.
    void* d_block = nullptr;
    size_t reserved = 0;

    std::array<cuzk::groth16::g1_vector_t*, 4> vectors() { return {&h, &l, &a, &b_g1}; }
    std::array<const cuzk::groth16::g1_vector_t*, 4> vectors() const { return {&h, &l, &a, &b_g1}; }
    size_t bytes() const;
    size_t largest_bytes() const;

    // The device copy of `v`: the resident one, or `v` copied into `staging` on `stream`
    // (allocated there on first use, large enough for every vector).
    const cuzk::affine_t* bases(const cuzk::groth16::g1_vector_t& v, cuzk::dev_ptr_t<cuzk::affine_t>& staging,
                                cudaStream_t stream) const;

    cuzk_groth16_params() = default;
    ~cuzk_groth16_params();
    cuzk_groth16_params(const cuzk_groth16_params&) = delete;
    cuzk_groth16_params& operator=(const cuzk_groth16_params&) = delete;
};

namespace cuzk::groth16 {
using params_t = cuzk_groth16_params;
}  // namespace cuzk::groth16
