// The G2 instance of the Pippenger MSM (msm/pippenger.cuh) and its C entry point.
#include "msm/pippenger.cuh"

namespace cuzk::msm {

template size_t msm_scratch_bytes<g2_t>(size_t, uint32_t, uint32_t);
template void msm_device<g2_t>(const g2_affine_t*, const fr_t*, size_t, g2_jacobian_t*, cudaStream_t,
                               msm_profile_t*, uint32_t, cudaStream_t, uint32_t);

}  // namespace cuzk::msm

using namespace cuzk;

extern "C" cuzk_error_t cuzk_msm_g2(const cuzk_g2_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g2_projective_t* out) {
    static_assert(sizeof(cuzk_g2_affine_t) == sizeof(g2_affine_t) &&
                      sizeof(cuzk_g2_projective_t) == sizeof(g2_jacobian_t),
                  "layout");
    return guard([&] { msm::msm_host<g2_t>(points, scalars, n, out); });
}
