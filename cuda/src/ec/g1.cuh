// G1 of BLS12-381 (y^2 = x^3 + 4 over Fp): the point types of ec/xyzz.cuh over fp_t.
#pragma once

#include "ec/xyzz.cuh"
#include "ff/bls12_381.cuh"
#include "ff/host_mont.cuh"

namespace cuzk {

using affine_t = ec_affine_t<fp_t>;
using jacobian_t = ec_jacobian_t<fp_t>;
using xyzz_t = ec_xyzz_t<fp_t>;

static_assert(sizeof(affine_t) == 96, "affine_t must match blst_p1_affine");
static_assert(sizeof(jacobian_t) == 144, "jacobian_t must match blst_p1");

// The group as a template argument of the MSM and batch-addition code (msm/msm.cuh).
struct g1_t {
    using affine = affine_t;
    using jacobian = jacobian_t;
    using xyzz = xyzz_t;
    // The accumulator over the host field, for the MSM's last step on a CPU (msm/host_combine.cuh).
    using host_xyzz = ec_xyzz_t<host_fp_t>;
    // Bitmaps one batch-addition launch sums (one grid row each): each holds a partial sum per
    // thread until the rows are reduced (about 26 MB per bitmap on an H200).
    static constexpr int batch_group = 4;
};

}  // namespace cuzk
