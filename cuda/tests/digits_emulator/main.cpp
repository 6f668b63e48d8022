// The MSM's signed-digit decomposition (src/msm/digits.cuh) run on the CPU: for every window
// from 4 to 22 bits, in the uniform and the balanced layout, and for edge and seeded random
// scalars below r, the windows must tile 256 bits or more, their bits the scalar, every digit
// must lie in [-(H_w - 1), H_w] with H_w = 2^(c_w - 1) <= 2^(c-1), and the signed digits must add
// up to the scalar again (the positive and the negative ones summed apart, as big integers).
// The scalars are read limb-major, strided, as the kernels read them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/big.h"
#include "../common/cuda_shims.h"
#include "msm/digits.cuh"
#include "util/random.cuh"

namespace {

using namespace cuzk::msm;
constexpr uint32_t MIN_WINDOW = 4, MAX_WINDOW = 22;

// r, the order of BLS12-381's groups, least significant limb first.
const big R = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};

int failures = 0;

void fail(const big& s, const digits::layout_t& layout, const char* what) {
    if (++failures > 20) return;
    std::printf("FAIL c=%u narrow=%u %s: scalar", layout.c, layout.narrow, what);
    for (size_t k = s.size(); k-- > 0;) std::printf(" %08x", s[k]);
    std::printf("\n");
}

void check(const std::vector<big>& scalars, const digits::layout_t& layout) {
    const size_t n = scalars.size();
    const uint32_t windows = layout.windows, top = windows - 1;
    if (layout.offset(top) + layout.width(top) < 256) fail(big{}, layout, "the windows cover fewer than 256 bits");
    if (layout.width(top) != layout.c) fail(big{}, layout, "the top window is narrower than c");
    for (uint32_t w = 0; w + 1 < windows; w++)
        if (layout.offset(w + 1) != layout.offset(w) + layout.width(w)) fail(big{}, layout, "a gap between windows");
    std::vector<uint32_t> limbs(digits::LIMBS * n, 0);  // limb-major, as canonical_kernel writes them
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < scalars[i].size(); k++) limbs[k * n + i] = scalars[i][k];
    for (size_t i = 0; i < n; i++) {
        const big& s = scalars[i];
        const auto limb = [&](uint32_t k) { return limbs[k * n + i]; };
        const uint64_t carry = digits::carries(limb, layout);
        big tiled, positive, negative;
        for (uint32_t w = 0; w < windows; w++) {
            const uint32_t c = layout.width(w), at = layout.offset(w), half = 1u << (c - 1);
            const uint32_t bits = digits::window_bits(limb, at, c);
            if (bits >> c) fail(s, layout, "window bits wider than the window");
            tiled = add(tiled, shl(big{bits}, at));
            const uint32_t in = uint32_t(carry >> w) & 1, out = w + 1 < windows ? uint32_t(carry >> (w + 1)) & 1 : 0;
            if (w == 0 && in) fail(s, layout, "a carry into window 0");
            const digits::digit_t d = digits::signed_digit(bits, in, c);
            if (d.magnitude > half) fail(s, layout, "a digit above H");
            if (d.negative && d.magnitude == half) fail(s, layout, "the digit -H");
            if (d.negative != bool(out) && w + 1 < windows) fail(s, layout, "carry out differs from the digit's sign");
            if (w + 1 == windows && d.negative) fail(s, layout, "the top window carries out");
            big& side = d.negative ? negative : positive;
            side = add(side, shl(big{d.magnitude}, at));
        }
        if (cmp(tiled, s) != 0) fail(s, layout, "the windows' bits do not tile the scalar");
        if (cmp(positive, add(s, negative)) != 0) fail(s, layout, "the signed digits do not add up to the scalar");
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int random = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<big> scalars = {big{}, big{1}, sub(R, big{1}), sub(R, big{2})};
    for (uint32_t pattern : {0xffffffffu, 0x55555555u, 0xaaaaaaaau, 0x80808080u, 0x7f7f7f7fu}) {
        big s(digits::LIMBS, pattern);
        s.back() &= 0x3fffffff;  // below 2^254 < r
        scalars.push_back(trimmed(s));
    }
    for (uint64_t counter = 0; scalars.size() < size_t(9 + random); counter += 4) {
        big s;
        for (uint64_t k = 0; k < 4; k++) {
            const uint64_t x = cuzk::splitmix64(23 + counter + k);
            s.push_back(uint32_t(x));
            s.push_back(uint32_t(x >> 32));
        }
        s.back() &= 0x7fffffff;
        if (cmp(s, R) < 0) scalars.push_back(trimmed(s));
    }
    int narrowed = 0;
    for (uint32_t c = MIN_WINDOW; c <= MAX_WINDOW; c++) {
        check(scalars, digits::layout_t::uniform(c));
        const digits::layout_t balanced = digits::layout_t::balanced(c);
        if (balanced.windows != digits::layout_t::uniform(c).windows) fail(big{}, balanced, "balanced adds windows");
        narrowed += balanced.narrow > 0;
        check(scalars, balanced);
    }
    // 22 bits: 12 windows over 264 bits, 8 of them narrowed to 21 (the plan's window at 2^26).
    const digits::layout_t planned = digits::layout_t::balanced(22);
    if (planned.windows != 12 || planned.narrow != 8) fail(big{}, planned, "22 bits: not 8 of 12 windows narrow");
    if (failures) {
        std::printf("%d failures\n", failures);
        return 1;
    }
    std::printf("digits: %zu scalars, windows of %u to %u bits, uniform and balanced (%d widths with narrow windows)\n",
                scalars.size(), MIN_WINDOW, MAX_WINDOW, narrowed);
    return 0;
}
