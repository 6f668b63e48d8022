// Unsigned big integers on the host, for the checks of fp52 (check.cpp): plain and slow
// (schoolbook products, reduction one bit at a time), which is what a reference should be.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace bigint {

// Integers of 7 x 64 bits (448 bits: every value below R <= 2^416 and products reduced below p).
constexpr int W = 7;
using big = std::vector<uint64_t>;  // little-endian 64-bit words, any length

inline int compare(const big& a, const big& b) {
    const size_t n = std::max(a.size(), b.size());
    for (size_t i = n; i-- > 0;) {
        const uint64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}
inline void sub_in_place(big& a, const big& b) {  // a -= b, a >= b
    unsigned __int128 borrow = 0;
    for (size_t i = 0; i < a.size(); i++) {
        const unsigned __int128 y = (i < b.size() ? b[i] : 0) + borrow;
        borrow = a[i] < y;
        a[i] = uint64_t(a[i] - uint64_t(y));
    }
}
inline big add(const big& a, const big& b) {
    big r(std::max(a.size(), b.size()) + 1, 0);
    unsigned __int128 carry = 0;
    for (size_t i = 0; i < r.size(); i++) {
        carry += (unsigned __int128)(i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
        r[i] = uint64_t(carry);
        carry >>= 64;
    }
    return r;
}
inline big mul_big(const big& a, const big& b) {
    big r(a.size() + b.size(), 0);
    for (size_t i = 0; i < a.size(); i++) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < b.size(); j++) {
            carry += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = uint64_t(carry);
            carry >>= 64;
        }
        r[i + b.size()] = uint64_t(carry);
    }
    return r;
}
// v mod p by shift-and-subtract, one bit at a time from the top.
inline big mod_p(const big& v, const big& p) {
    big r(W + 1, 0);
    for (size_t bit = v.size() * 64; bit-- > 0;) {
        for (size_t i = r.size(); i-- > 1;) r[i] = (r[i] << 1) | (r[i - 1] >> 63);
        r[0] = (r[0] << 1) | ((v[bit / 64] >> (bit % 64)) & 1);
        if (compare(r, p) >= 0) sub_in_place(r, p);
    }
    r.resize(W);
    return r;
}

// The integer of n limbs of 52 bits (the last may hold more), and back (bits above 52 n are
// dropped).
inline big from_limbs52(const uint64_t* limbs, int n) {
    big v(W + 1, 0);
    for (int k = 0; k < n; k++)
        for (int b = 0; b < 64; b++)
            if ((limbs[k] >> b) & 1) {
                const int bit = 52 * k + b;
                if (bit / 64 < W + 1) v[bit / 64] |= uint64_t(1) << (bit % 64);
            }
    return v;
}
inline void to_limbs52(const big& v, uint64_t* limbs, int n) {
    for (int k = 0; k < n; k++) {
        limbs[k] = 0;
        for (int b = 0; b < 52; b++) {
            const int bit = 52 * k + b;
            if (bit / 64 < int(v.size()) && ((v[bit / 64] >> (bit % 64)) & 1)) limbs[k] |= uint64_t(1) << b;
        }
    }
}

}  // namespace bigint
