// Step 5 of the Pippenger MSM (pippenger.cuh): the windows' sums combined by Horner's rule,
//     sum_w 2^(o_w) W_w = (...((W_top 2^(c_(top-1)) + W_(top-1)) 2^(c_(top-2)) + ...) 2^(c_0) + W_0,
// with the widths c_w of msm/digits.cuh's layout_t (the first `narrow` windows c - 1 bits, the
// others c),
// as a template over the XYZZ point type, so that one definition runs on the host field
// (msm/host_combine.cuh, in production) and on the device field under the CPU emulator
// (tests/host_field_emulator), where both must give the same bits.
#pragma once

#include <cstdint>

namespace cuzk::msm {

// The chain starts at the top window's sum, not at infinity, which would take c doublings of
// nothing; `num_windows` >= 1. The doublings are one dependent chain: the reason this step
// runs on a CPU core (msm/host_combine.cuh).
template <class X>
typename X::jacobian_t combine_windows(const X* windows, uint32_t num_windows, uint32_t c, uint32_t narrow = 0) {
    X acc = windows[num_windows - 1];
    for (int w = int(num_windows) - 2; w >= 0; w--) {
        const uint32_t width = uint32_t(w) < narrow ? c - 1 : c;
        for (uint32_t i = 0; i < width; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    return acc.to_jacobian();
}

}  // namespace cuzk::msm
