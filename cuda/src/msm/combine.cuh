// Step 5 of the Pippenger MSM (pippenger.cuh): the windows' sums combined by Horner's rule,
//     sum_w 2^(cw) W_w = (...((W_top 2^c + W_(top-1)) 2^c + ...) 2^c + W_0,
// as a template over the XYZZ point type, so that one definition runs on the host field
// (msm/host_combine.cuh, in production) and on the device field under the CPU emulator
// (tests/host_field_emulator), where both must give the same bits.
#pragma once

#include <cstdint>

namespace cuzk::msm {

// The chain starts at the top window's sum, not at infinity, which would take c doublings of
// nothing; `num_windows` >= 1. The c (W - 1) doublings are one dependent chain: the reason
// this step runs on a CPU core (msm/host_combine.cuh).
template <class X>
typename X::jacobian_t combine_windows(const X* windows, uint32_t num_windows, uint32_t c) {
    X acc = windows[num_windows - 1];
    for (int w = int(num_windows) - 2; w >= 0; w--) {
        for (uint32_t i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    return acc.to_jacobian();
}

}  // namespace cuzk::msm
