// Big integers for the emulator tests' references: little-endian 32-bit limbs of any length,
// written from the definitions (schoolbook, one bit at a time where that is simplest), plain
// and slow on purpose. Shared by the field emulator (field_emulator/reference.h) and the digits
// emulator (digits_emulator/main.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// Little-endian 32-bit limbs, any length; add, sub and mul return values without high zero
// limbs (fixed widths, where they matter, are the caller's business).
using big = std::vector<uint32_t>;

inline big trimmed(big a) {
    while (!a.empty() && a.back() == 0) a.pop_back();
    return a;
}
inline int cmp(const big& x, const big& y) {
    const big a = trimmed(x), b = trimmed(y);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (size_t i = a.size(); i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
inline big add(const big& a, const big& b) {
    big r(std::max(a.size(), b.size()) + 1, 0);
    uint64_t c = 0;
    for (size_t i = 0; i < r.size(); i++) {
        c += uint64_t(i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
        r[i] = uint32_t(c);
        c >>= 32;
    }
    return trimmed(r);
}
// a - b for a >= b.
inline big sub(const big& a, const big& b) {
    big r(a.size(), 0);
    int64_t c = 0;
    for (size_t i = 0; i < a.size(); i++) {
        c += int64_t(a[i]) - (i < b.size() ? b[i] : 0);
        r[i] = uint32_t(c);
        c = c < 0 ? -1 : 0;
    }
    if (c != 0) {
        std::fprintf(stderr, "reference: negative difference\n");
        std::exit(2);
    }
    return trimmed(r);
}
inline big mul(const big& a, const big& b) {
    big r(a.size() + b.size() + 1, 0);
    for (size_t i = 0; i < a.size(); i++) {
        uint64_t c = 0;
        for (size_t j = 0; j < b.size(); j++) {
            c += uint64_t(a[i]) * b[j] + r[i + j];
            r[i + j] = uint32_t(c);
            c >>= 32;
        }
        for (size_t k = i + b.size(); c; k++) {
            c += r[k];
            r[k] = uint32_t(c);
            c >>= 32;
        }
    }
    return trimmed(r);
}
inline big shr1(big a) {
    for (size_t i = 0; i < a.size(); i++) a[i] = (a[i] >> 1) | (i + 1 < a.size() ? a[i + 1] << 31 : 0);
    return trimmed(a);
}
inline big mod(big a, const big& p) {
    // Shift-and-subtract: long division by p, one bit at a time.
    big r;
    for (size_t i = a.size() * 32; i-- > 0;) {
        r = add(r, r);
        if ((a[i / 32] >> (i % 32)) & 1) r = add(r, big{1});
        if (cmp(r, p) >= 0) r = sub(r, p);
    }
    return r;
}
// a * 2^bits.
inline big shl(const big& a, unsigned bits) {
    big r(bits / 32, 0);
    uint32_t carry = 0;
    for (uint32_t limb : a) {
        r.push_back(bits % 32 ? (limb << (bits % 32)) | carry : limb);
        carry = bits % 32 ? limb >> (32 - bits % 32) : 0;
    }
    r.push_back(carry);
    return trimmed(r);
}

}  // namespace
