// Big integers and Montgomery arithmetic written from the definitions: the reference the
// field emulator (main.cpp) compares the device code with. Plain and slow on purpose:
// schoolbook products, reductions one bit at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Little-endian 32-bit limbs, any length; add, sub and mul return values without high zero
// limbs (fixed widths, where they matter, are the caller's business).
using big = std::vector<uint32_t>;

big trimmed(big a) {
    while (!a.empty() && a.back() == 0) a.pop_back();
    return a;
}
int cmp(const big& x, const big& y) {
    const big a = trimmed(x), b = trimmed(y);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (size_t i = a.size(); i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
big add(const big& a, const big& b) {
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
big sub(const big& a, const big& b) {
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
big mul(const big& a, const big& b) {
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
big shr1(big a) {
    for (size_t i = 0; i < a.size(); i++) a[i] = (a[i] >> 1) | (i + 1 < a.size() ? a[i + 1] << 31 : 0);
    return trimmed(a);
}
big mod(big a, const big& p) {
    // Shift-and-subtract: long division by p, one bit at a time.
    big r;
    for (size_t i = a.size() * 32; i-- > 0;) {
        r = add(r, r);
        if ((a[i / 32] >> (i % 32)) & 1) r = add(r, big{1});
        if (cmp(r, p) >= 0) r = sub(r, p);
    }
    return r;
}
// t * 2^-bits mod p, one bit at a time (add p when odd, halve): Montgomery's reduction from
// its definition, independent of the limb-wise algorithms under test.
big redc(big t, const big& p, int bits) {
    for (int i = 0; i < bits; i++) {
        if (!t.empty() && (t[0] & 1)) t = add(t, p);
        t = shr1(t);
    }
    return mod(t, p);
}

template <class F>
struct field_ref {
    big p;
    int bits = 32 * F::N;
    field_ref() {
        for (int i = 0; i < F::N; i++) p.push_back(F::modulus().l[i]);
        p = trimmed(p);
    }
    big of(const F& x) const {
        big r(x.l, x.l + F::N);
        return trimmed(r);
    }
    F to(const big& x) const {
        F r;
        for (int i = 0; i < F::N; i++) r.l[i] = i < int(x.size()) ? x[i] : 0;
        return r;
    }
    big mont_mul(const big& a, const big& b) const { return redc(mul(a, b), p, bits); }
    big add_mod(const big& a, const big& b) const { return mod(add(a, b), p); }
    big sub_mod(const big& a, const big& b) const { return mod(sub(add(a, p), b), p); }
};

[[noreturn]] void fail(const char* field, const std::string& what, const big& want, const big& got) {
    std::fprintf(stderr, "FAIL %s %s\n  want", field, what.c_str());
    for (size_t i = want.size(); i-- > 0;) std::fprintf(stderr, " %08x", want[i]);
    std::fprintf(stderr, "\n  got ");
    for (size_t i = got.size(); i-- > 0;) std::fprintf(stderr, " %08x", got[i]);
    std::fprintf(stderr, "\n");
    std::exit(1);
}

}  // namespace
