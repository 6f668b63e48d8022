// Step 5 of the Pippenger MSM (pippenger.cuh): the windows' sums combined by Horner's rule,
//     sum_w 2^(o_w) W_w = (...((W_top 2^(c_(top-1)) + W_(top-1)) 2^(c_(top-2)) + ...) 2^(c_0) + W_0,
// with the widths c_w of msm/digits.cuh's layout_t (for the sets of windows over shifted
// copies, one width of c copies bits), as a template over the XYZZ point type, so that one definition runs on the host field
// (msm/host_combine.cuh, in production) and on the device field under the CPU emulator
// (tests/host_field_emulator), where both must give the same bits.
#pragma once

#include <cstdint>

#include "msm/digits.cuh"

namespace cuzk::msm {

// The chain starts at the top window's sum, not at infinity, which would take c doublings of
// nothing; `layout.windows` >= 1 sums in `windows`. The doublings are one dependent chain: the
// reason this step runs on a CPU core (msm/host_combine.cuh).
template <class X>
typename X::jacobian_t combine_windows(const X* windows, const digits::layout_t& layout) {
    X acc = windows[layout.windows - 1];
    for (int w = int(layout.windows) - 2; w >= 0; w--) {
        for (uint32_t i = 0; i < layout.width(uint32_t(w)); i++) acc = acc.dbl();
        acc = acc.add(windows[w]);
    }
    return acc.to_jacobian();
}

}  // namespace cuzk::msm
