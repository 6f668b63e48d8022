// Shifted copies of an MSM's bases (msm_device's `copies`, see pippenger.cuh): made once on
// the GPU for bases that stay there (a proving key's), so that runs of `copies` windows share
// one set of buckets. Templates over the group, included by pippenger.cuh only.
#pragma once

#include <cstdint>

#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

// points[j n + i] = 2^(c j) points[i] for 1 <= j < copies, in affine form (one inversion a
// copy: a one-time cost of bases that stay on the device).
template <class G>
__global__ void shift_bases_kernel(typename G::affine* points, size_t n, uint32_t c, uint32_t copies) {
    using xyzz_t = typename G::xyzz;
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    xyzz_t acc = xyzz_t::from_affine(points[i]);
    for (uint32_t j = 1; j < copies; j++) {
        for (uint32_t b = 0; b < c; b++) acc = acc.dbl();
        points[j * n + i] = acc.to_affine();
    }
}

}  // namespace

// Refuses a count of copies that msm_device and shift_bases cannot take with windows of c
// bits: none, or more than one without the window they are made for, or more than its windows.
inline void require_copies(uint32_t c, uint32_t copies) {
    CUZK_REQUIRE(copies >= 1, "msm: copies of the bases must be at least 1");
    if (copies == 1) return;
    CUZK_REQUIRE(c >= MIN_WINDOW && c <= MAX_WINDOW,
                 "msm: shifted copies of the bases need the window they were made for (4 to 22 bits)");
    const uint32_t windows = plan_of_bits(c).windows;
    CUZK_REQUIRE(copies <= windows, "msm: " + std::to_string(copies) + " copies of the bases, more than the " +
                                        std::to_string(windows) + " windows of " + std::to_string(c) + " bits");
}

// Fills d_points[j n + i] = 2^(c j) d_points[i] for 1 <= j < copies (d_points holds copies * n
// points, the first n given), for msm_device's `copies` with window_bits c.
template <class G>
void shift_bases(typename G::affine* d_points, size_t n, uint32_t c, uint32_t copies, cudaStream_t stream) {
    require_copies(c, copies);
    if (n == 0 || copies == 1) return;
    shift_bases_kernel<G><<<blocks_for(n, 128), 128, 0, stream>>>(d_points, n, c, copies);
    CUZK_LAUNCH_CHECK();
}

}  // namespace cuzk::msm
