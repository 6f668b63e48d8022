// The test entry points' way to the other representative of a value in the redundant form
// (ff/mont.cuh, ff/redundant.cuh): x + p for x < p, by a plain carry chain rather than the
// redundant operations under test.
#pragma once

#include "ff/mont.cuh"

namespace cuzk {

template <class F>
__device__ __forceinline__ F raised(const F& x) {
    F r;
    r.l[0] = ptx::add_cc(x.l[0], F::template p_times<1>(0));
#pragma unroll
    for (int i = 1; i < F::N - 1; i++) r.l[i] = ptx::addc_cc(x.l[i], F::template p_times<1>(i));
    r.l[F::N - 1] = ptx::addc(x.l[F::N - 1], F::template p_times<1>(F::N - 1));
    return r;
}

}  // namespace cuzk
