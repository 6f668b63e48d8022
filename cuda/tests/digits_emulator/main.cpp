// The MSM's signed-digit decomposition (src/msm/digits.cuh) run on the CPU: for every window
// from 4 to 22 bits and for edge and seeded random scalars below r, the windows' bits must
// tile the scalar, every digit must lie in [-(H - 1), H] with H = 2^(c-1), and the signed
// digits must add up to the scalar again (sum_w d_w 2^(cw), in 320-bit two's complement). The
// scalars are read limb-major, strided, as the kernels read them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define __device__
#define __forceinline__ inline
#include "msm/digits.cuh"

namespace {

using namespace cuzk::msm;
constexpr uint32_t MIN_WINDOW = 4, MAX_WINDOW = 22;

// r, the order of BLS12-381's groups, least significant limb first.
constexpr uint32_t R[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                           0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};

struct scalar_t {
    uint32_t l[8];
};

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

bool below_r(const scalar_t& s) {
    for (int k = 7; k >= 0; k--)
        if (s.l[k] != R[k]) return s.l[k] < R[k];
    return false;
}

scalar_t r_minus(uint32_t x) {
    scalar_t s;
    uint64_t borrow = x;
    for (int k = 0; k < 8; k++) {
        const uint64_t d = uint64_t(R[k]) - borrow;
        s.l[k] = uint32_t(d);
        borrow = (d >> 63) & 1;
    }
    return s;
}

// acc (10 limbs, two's complement) += or -= m * 2^shift.
void add_shifted(uint32_t* acc, uint32_t m, uint32_t shift, bool negative) {
    uint32_t v[10] = {};
    const uint32_t k = shift / 32, sh = shift % 32;
    const uint64_t wide = uint64_t(m) << sh;
    if (k < 10) v[k] = uint32_t(wide);
    if (k + 1 < 10) v[k + 1] = uint32_t(wide >> 32);
    if (negative) {  // -v = ~v + 1
        uint64_t carry = 1;
        for (int i = 0; i < 10; i++) {
            const uint64_t t = uint64_t(~v[i]) + carry;
            v[i] = uint32_t(t);
            carry = t >> 32;
        }
    }
    uint64_t carry = 0;
    for (int i = 0; i < 10; i++) {
        const uint64_t t = uint64_t(acc[i]) + v[i] + carry;
        acc[i] = uint32_t(t);
        carry = t >> 32;
    }
}

int failures = 0;

void fail(const scalar_t& s, uint32_t c, const char* what) {
    if (++failures > 20) return;
    std::printf("FAIL c=%u %s: scalar", c, what);
    for (int k = 7; k >= 0; k--) std::printf(" %08x", s.l[k]);
    std::printf("\n");
}

void check(const std::vector<scalar_t>& scalars, uint32_t c) {
    const size_t n = scalars.size();
    const uint32_t windows = (256 + c - 1) / c, half = 1u << (c - 1);
    std::vector<uint32_t> limbs(8 * n);  // limb-major, as canonical_kernel writes them
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) limbs[k * n + i] = scalars[i].l[k];
    for (size_t i = 0; i < n; i++) {
        const scalar_t& s = scalars[i];
        const auto limb = [&](uint32_t k) { return limbs[k * n + i]; };
        const uint64_t carry = digits::carries(limb, c, windows);
        uint32_t tiled[10] = {}, sum[10] = {};
        for (uint32_t w = 0; w < windows; w++) {
            const uint32_t bits = digits::window_bits(limb, w * c, c);
            if (bits >> c) fail(s, c, "window bits wider than c");
            add_shifted(tiled, bits, w * c, false);
            const uint32_t in = uint32_t(carry >> w) & 1, out = w + 1 < windows ? uint32_t(carry >> (w + 1)) & 1 : 0;
            if (w == 0 && in) fail(s, c, "a carry into window 0");
            const digits::digit_t d = digits::signed_digit(bits, in, c);
            if (d.magnitude > half) fail(s, c, "a digit above H");
            if (d.negative && d.magnitude == half) fail(s, c, "the digit -H");
            if (d.negative != bool(out) && w + 1 < windows) fail(s, c, "carry out differs from the digit's sign");
            if (w + 1 == windows && d.negative) fail(s, c, "the top window carries out");
            add_shifted(sum, d.magnitude, w * c, d.negative);
        }
        for (int k = 0; k < 10; k++) {
            const uint32_t want = k < 8 ? s.l[k] : 0;
            if (tiled[k] != want) {
                fail(s, c, "the windows' bits do not tile the scalar");
                break;
            }
            if (sum[k] != want) {
                fail(s, c, "the signed digits do not add up to the scalar");
                break;
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int random = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<scalar_t> scalars;
    scalars.push_back(scalar_t{});                           // 0
    scalars.push_back(scalar_t{{1, 0, 0, 0, 0, 0, 0, 0}});   // 1
    scalars.push_back(r_minus(1));
    scalars.push_back(r_minus(2));
    for (uint32_t pattern : {0xffffffffu, 0x55555555u, 0xaaaaaaaau, 0x80808080u, 0x7f7f7f7fu}) {
        scalar_t s;
        for (int k = 0; k < 8; k++) s.l[k] = pattern;
        s.l[7] &= 0x3fffffff;  // below 2^254 < r
        scalars.push_back(s);
    }
    uint64_t seed = 23;
    for (int i = 0; i < random;) {
        scalar_t s;
        for (int k = 0; k < 8; k += 2) {
            const uint64_t x = splitmix(seed);
            s.l[k] = uint32_t(x);
            s.l[k + 1] = uint32_t(x >> 32);
        }
        s.l[7] &= 0x7fffffff;
        if (!below_r(s)) continue;
        scalars.push_back(s);
        i++;
    }
    for (uint32_t c = MIN_WINDOW; c <= MAX_WINDOW; c++) check(scalars, c);
    if (failures) {
        std::printf("%d failures\n", failures);
        return 1;
    }
    std::printf("digits: %zu scalars, windows of %u to %u bits\n", scalars.size(), MIN_WINDOW, MAX_WINDOW);
    return 0;
}
