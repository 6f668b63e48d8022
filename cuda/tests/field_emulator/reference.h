// Montgomery arithmetic written from the definitions, on the big integers of common/big.h: the
// reference the field emulator (main.cpp) compares the device code with. Plain and slow on
// purpose: reductions one bit at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/big.h"

namespace {

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
