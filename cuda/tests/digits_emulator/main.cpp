// The MSM's signed-digit decomposition (src/msm/digits.cuh) run on the CPU: for every window
// from 4 to 22 bits and for edge and seeded random scalars below r, the windows' bits must
// tile the scalar, every digit must lie in [-(H - 1), H] with H = 2^(c-1), and the signed
// digits must add up to the scalar again (the positive and the negative ones summed apart, as
// big integers). The scalars are read limb-major, strided, as the kernels read them.
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

void fail(const big& s, uint32_t c, const char* what) {
    if (++failures > 20) return;
    std::printf("FAIL c=%u %s: scalar", c, what);
    for (size_t k = s.size(); k-- > 0;) std::printf(" %08x", s[k]);
    std::printf("\n");
}

void check(const std::vector<big>& scalars, uint32_t c) {
    const size_t n = scalars.size();
    const uint32_t windows = (256 + c - 1) / c, half = 1u << (c - 1);
    std::vector<uint32_t> limbs(digits::LIMBS * n, 0);  // limb-major, as canonical_kernel writes them
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < scalars[i].size(); k++) limbs[k * n + i] = scalars[i][k];
    for (size_t i = 0; i < n; i++) {
        const big& s = scalars[i];
        const auto limb = [&](uint32_t k) { return limbs[k * n + i]; };
        const uint64_t carry = digits::carries(limb, c, windows);
        big tiled, positive, negative;
        for (uint32_t w = 0; w < windows; w++) {
            const uint32_t bits = digits::window_bits(limb, w * c, c);
            if (bits >> c) fail(s, c, "window bits wider than c");
            tiled = add(tiled, shl(big{bits}, w * c));
            const uint32_t in = uint32_t(carry >> w) & 1, out = w + 1 < windows ? uint32_t(carry >> (w + 1)) & 1 : 0;
            if (w == 0 && in) fail(s, c, "a carry into window 0");
            const digits::digit_t d = digits::signed_digit(bits, in, c);
            if (d.magnitude > half) fail(s, c, "a digit above H");
            if (d.negative && d.magnitude == half) fail(s, c, "the digit -H");
            if (d.negative != bool(out) && w + 1 < windows) fail(s, c, "carry out differs from the digit's sign");
            if (w + 1 == windows && d.negative) fail(s, c, "the top window carries out");
            big& side = d.negative ? negative : positive;
            side = add(side, shl(big{d.magnitude}, w * c));
        }
        if (cmp(tiled, s) != 0) fail(s, c, "the windows' bits do not tile the scalar");
        if (cmp(positive, add(s, negative)) != 0) fail(s, c, "the signed digits do not add up to the scalar");
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
    for (uint32_t c = MIN_WINDOW; c <= MAX_WINDOW; c++) check(scalars, c);
    if (failures) {
        std::printf("%d failures\n", failures);
        return 1;
    }
    std::printf("digits: %zu scalars, windows of %u to %u bits\n", scalars.size(), MIN_WINDOW, MAX_WINDOW);
    return 0;
}
