// The G1 instance of the Pippenger MSM (msm/pippenger.cuh) and its C entry points.
#include "cuzk/testing.h"
#include "msm/pippenger.cuh"

namespace cuzk::msm {

// The window plan depends only on n, not on the group: defined once, here.
window_plan_t plan_of_bits(uint32_t c) { return {c, (SCALAR_BITS + c - 1) / c}; }

shifted_plan_t plan_shifted(size_t n, uint32_t max_copies) {
    // Cost model in mixed-addition units, per set of windows sharing buckets (a window alone
    // without copies) of c bits:
    //   - the accumulations into buckets, copies n of them (chunked: the same cost per
    //     addition at any c; a last set's missing windows are zero digits, walked too);
    //   - the digits and their radix sort, about 0.05 per entry and pass of 8 key bits (on the
    //     H200 a pass over 2^26 pairs took about 1.5 ms, the time of 3 M additions at 2.2 G/s);
    //   - per bucket of the H = 2^(c-1): the reduction's running sums and row sums, about 3.2
    //     additions per bucket, 1.6 * 2^c (msmexp on an H100, 2026-12-07: 12 windows of 22
    //     bits over 2^26 points reduced in 34.4 ms, 13 of 20 bits in 11.0). G2's reduction
    //     costs about 3.75 of its own additions a bucket, a price that would change G2's choice
    //     at some sizes between powers of two; the plan is one for both groups, and G2 sweeps
    //     at 2^22 and 2^24 found its choices fastest (docs/benchmarks.md, nineteenth session).
    //     Without copies the windows are balanced (msm/digits.cuh), and a narrow window
    //     reduces half the buckets; the model still prices every window at c bits, so that
    //     balancing shrinks the reduction of the window it picks and moves no choice. Priced
    //     as they are, 2^22 points would take 19-bit windows instead of 16 and 2^25 22 instead
    //     of 20 (and G2's sweep found 16 fastest at 2^22): not measured yet.
    // c is the cheapest in [MIN_WINDOW, PLAN_MAX_WINDOW]; copies the fewest that give the
    // least count of sets max_copies allows.
    max_copies = std::max(max_copies, 1u);
    shifted_plan_t best{MIN_WINDOW, 1};
    double best_cost = -1;
    for (uint32_t c = MIN_WINDOW; c <= PLAN_MAX_WINDOW; c++) {
        const uint32_t windows = plan_of_bits(c).windows;
        const uint32_t most = std::min(windows, max_copies);
        const uint32_t sets = (windows + most - 1) / most, copies = (windows + sets - 1) / sets;
        const double passes = double((c + 7) / 8);
        const double cost = double(sets) * (double(copies) * double(n) * (1.0 + 0.05 * passes) +
                                            1.6 * double(size_t(1) << c));
        if (best_cost < 0 || cost < best_cost) {
            best = {c, copies};
            best_cost = cost;
        }
    }
    return best;
}

window_plan_t plan_windows(size_t n) { return plan_of_bits(plan_shifted(n, 1).bits); }

template size_t msm_scratch_bytes<g1_t>(size_t, uint32_t, uint32_t);
template void shift_bases<g1_t>(affine_t*, size_t, uint32_t, uint32_t, cudaStream_t);
template void msm_device<g1_t>(const affine_t*, const fr_t*, size_t, jacobian_t*, cudaStream_t, msm_profile_t*,
                               uint32_t, cudaStream_t, uint32_t);

}  // namespace cuzk::msm

using namespace cuzk;

extern "C" cuzk_error_t cuzk_msm_g1(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g1_projective_t* out) {
    static_assert(sizeof(cuzk_g1_affine_t) == sizeof(affine_t) && sizeof(cuzk_g1_projective_t) == sizeof(jacobian_t),
                  "layout");
    return guard([&] { msm::msm_host<g1_t>(points, scalars, n, out); });
}

extern "C" cuzk_error_t cuzk_test_msm_g1_window(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                                uint32_t window_bits, uint32_t copies, cuzk_g1_projective_t* out) {
    return guard([&] {
        CUZK_REQUIRE(window_bits >= msm::MIN_WINDOW && window_bits <= msm::MAX_WINDOW,
                     "msm test: window bits must be in [4, 22]");
        msm::msm_host<g1_t>(points, scalars, n, out, window_bits, copies);
    });
}

extern "C" cuzk_error_t cuzk_msm_g1_device(const cuzk_g1_affine_t* d_points, const cuzk_fr_t* d_scalars, size_t n,
                                           cuzk_g1_projective_t* d_out, cuzk_stream_t stream) {
    return guard([&] {
        msm::msm_device<g1_t>(reinterpret_cast<const affine_t*>(d_points), reinterpret_cast<const fr_t*>(d_scalars), n,
                              reinterpret_cast<jacobian_t*>(d_out), stream);
    });
}
