// The G1 instance of the Pippenger MSM (msm/pippenger.cuh) and its C entry points.
#include "msm/pippenger.cuh"

namespace cuzk::msm {

// The window plan depends only on n, not on the group: defined once, here.
window_plan_t plan_windows(size_t n) {
    // Cost model in mixed-addition units: n accumulations per window plus about 1.5 additions
    // per bucket in the reduction (two full additions, each ~1.4 mixed ones, over H = 2^(c-1)
    // buckets); c is the cheapest in [4, 16].
    window_plan_t best{4, (SCALAR_BITS + 3) / 4};
    double best_cost = -1;
    for (uint32_t c = 4; c <= MAX_WINDOW; c++) {
        const uint32_t w = (SCALAR_BITS + c - 1) / c;
        const double cost = double(w) * (double(n) + 1.5 * double(size_t(1) << c));
        if (best_cost < 0 || cost < best_cost) {
            best = {c, w};
            best_cost = cost;
        }
    }
    return best;
}

template size_t msm_scratch_bytes<g1_t>(size_t);
template void msm_device<g1_t>(const affine_t*, const fr_t*, size_t, jacobian_t*, cudaStream_t, msm_profile_t*);

}  // namespace cuzk::msm

using namespace cuzk;

extern "C" cuzk_error_t cuzk_msm_g1(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g1_projective_t* out) {
    static_assert(sizeof(cuzk_g1_affine_t) == sizeof(affine_t) && sizeof(cuzk_g1_projective_t) == sizeof(jacobian_t),
                  "layout");
    return guard([&] { msm::msm_host<g1_t>(points, scalars, n, out); });
}

extern "C" cuzk_error_t cuzk_msm_g1_device(const cuzk_g1_affine_t* d_points, const cuzk_fr_t* d_scalars, size_t n,
                                           cuzk_g1_projective_t* d_out, cuzk_stream_t stream) {
    return guard([&] {
        msm::msm_device<g1_t>(reinterpret_cast<const affine_t*>(d_points), reinterpret_cast<const fr_t*>(d_scalars), n,
                              reinterpret_cast<jacobian_t*>(d_out), stream);
    });
}
