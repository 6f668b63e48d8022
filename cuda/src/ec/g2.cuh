// G2 of BLS12-381 (y^2 = x^3 + 4(1 + u) over Fp2): the point types of ec/xyzz.cuh over fp2_t,
// in blst's layouts (blst_p2_affine, blst_p2), so blstrs::G2Affine / G2Projective arrays cross
// unchanged.
#pragma once

#include "ec/xyzz.cuh"
#include "ff/fp2.cuh"
#include "ff/host_mont.cuh"

namespace cuzk {

using g2_affine_t = ec_affine_t<fp2_t>;
using g2_jacobian_t = ec_jacobian_t<fp2_t>;
using g2_xyzz_t = ec_xyzz_t<fp2_t>;

static_assert(sizeof(g2_affine_t) == 192, "g2_affine_t must match blst_p2_affine");
static_assert(sizeof(g2_jacobian_t) == 288, "g2_jacobian_t must match blst_p2");

// The group as a template argument of the MSM and batch-addition code (msm/msm.cuh).
struct g2_t {
    using affine = g2_affine_t;
    using jacobian = g2_jacobian_t;
    using xyzz = g2_xyzz_t;
    // The accumulator over the host field, for the MSM's last step on a CPU (msm/host_combine.cuh).
    using host_xyzz = ec_xyzz_t<host_fp2_t>;
    // Bitmaps one batch-addition launch sums: a G2 partial sum per thread is twice a G1 one,
    // and G2 batch additions come one bitmap at a time (B's ones).
    static constexpr int batch_group = 1;
};

}  // namespace cuzk
