// Steps 4 and 5 of the Pippenger MSM (pippenger.cuh): each window's buckets reduced to
// sum_d d B_d by running sums in segments, and the windows combined by Horner's rule.
// Templates over the group's XYZZ type, included by pippenger.cuh only.
#pragma once

#include <cstdint>

namespace cuzk::msm {
namespace {

constexpr uint32_t SEG = 64;  // buckets per reduction segment

// k * p for 0 < k < 2^32, by double-and-add from the top set bit.
template <class X>
__device__ X mul_small(const X& p, uint32_t k) {
    X r = X::inf();
    for (int b = 31 - __clz(k); b >= 0; b--) {
        r = r.dbl();
        if ((k >> b) & 1) r = r.add(p);
    }
    return r;
}

// One thread per segment of `len` buckets, in place. Bucket j of a window holds digit j + 1,
// so the segment starting at bucket a contributes
//     sum_j (j + 1) B_j = sum_{d=1}^{len-1} R_d + (a + 1) R_0,   R_d = sum_{j >= a + d} B_j,
// the R_d being the running sums from the segment's top. This kernel replaces B_{a+d} by R_d
// for d >= 1, writes R_0 (the segment's sum) to sums[t] and sets bucket a to infinity, so
// that each segment's row sum of the buckets (reduce_rows) is the first term. The segments
// tile the buckets (len divides half). One accumulator a thread: the kernel that kept the
// running sum and the sum of running sums both in registers spilled 4 KB a thread for G2
// (255 registers), where the G2 MSM's reduction took 74 ms at 2^24.
template <class X>
__global__ void __launch_bounds__(128) running_sums_kernel(X* buckets, uint32_t len, size_t total_segments, X* sums) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    X* b = buckets + t * len;
    X running = X::inf();
    for (uint32_t d = len - 1; d > 0; d--) {
        running = running.add(b[d]);
        b[d] = running;
    }
    sums[t] = running.add(b[0]);
    b[0] = X::inf();
}

// out[t] = rows[t] + (a + 1) * sums[t] for segment t, which starts at bucket a of its window.
// The small multiple has a kernel of its own: inlined beside the running sums, its
// double-and-add loop made ptxas spill (552 bytes a thread for G1, against 332 without it).
template <class X>
__global__ void __launch_bounds__(128) scale_kernel(const X* rows, const X* sums, uint32_t half, uint32_t len,
                                                    size_t total_segments, X* out) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_segments) return;
    const uint32_t a = uint32_t((t % (half / len)) * len);
    out[t] = rows[t].add(mul_small(sums[t], a + 1));
}

// Horner over the window sums, top window first; writes the Jacobian result. One thread:
// the c (W - 1) doublings are one dependent chain, so this kernel's time is their latency
// (for G2 at 2^24, 20-bit windows, 8.4 ms). The chain starts at the top window's sum, not at
// infinity, which would take c more doublings of nothing. num_windows >= 1.
template <class X>
__global__ void combine_kernel(const X* windows, uint32_t num_windows, uint32_t c, typename X::jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    X acc = windows[num_windows - 1];
    for (int w = int(num_windows) - 2; w >= 0; w--) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    *out = acc.to_jacobian();
}

}  // namespace
}  // namespace cuzk::msm
