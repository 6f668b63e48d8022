// An Fr product for the NTT's round twiddles on the FP64 pipe (nttmix, ntt_mixed.cu): an
// element in the library's form (eight 32-bit limbs of x R mod r, R = 2^256, fully reduced)
// times a twiddle held for fp52 (five 52-bit limbs, as doubles, of 16 w mod r, where w is the
// library's integer for the twiddle). fp52's product divides by 2^260 where the library's
// divides by 2^256, and the factor 16 makes up the difference:
//     (x R) (16 w R) / 2^260 = x w R (16 2^256 / 2^260) = (x w) R   (mod r),
// the library's form of the product, below 2r (fp52's bound); one conditional subtraction
// makes it fully reduced. So the integer and the FP64 products can be mixed freely.
#pragma once

#include <cstdint>

#include "fp52.cuh"

namespace fp52 {

// Eight 32-bit limbs (a value below 2^256) to five limbs of 52 bits (the last of 48).
FP52_HD void u32_to_limbs52(const uint32_t (&x)[8], uint64_t (&l)[5]) {
    uint64_t w[4];
    FP52_UNROLL
    for (int i = 0; i < 4; i++) w[i] = uint64_t(x[2 * i]) | (uint64_t(x[2 * i + 1]) << 32);
    l[0] = w[0] & MASK;
    l[1] = ((w[0] >> 52) | (w[1] << 12)) & MASK;
    l[2] = ((w[1] >> 40) | (w[2] << 24)) & MASK;
    l[3] = ((w[2] >> 28) | (w[3] << 36)) & MASK;
    l[4] = w[3] >> 16;
}

// Five limbs of 52 bits whose value is below 2^256 (limbs 0-3 below 2^52, the last below
// 2^48) to eight 32-bit limbs.
FP52_HD void limbs52_to_u32(const uint64_t (&l)[5], uint32_t (&x)[8]) {
    const uint64_t w[4] = {l[0] | (l[1] << 52), (l[1] >> 12) | (l[2] << 40), (l[2] >> 24) | (l[3] << 28),
                           (l[3] >> 36) | (l[4] << 16)};
    FP52_UNROLL
    for (int i = 0; i < 4; i++) {
        x[2 * i] = uint32_t(w[i]);
        x[2 * i + 1] = uint32_t(w[i] >> 32);
    }
}

// a t / 2^260 mod r, below 2r, in 32-bit limbs: a in the library's limbs (below r), t as
// fp52 limbs (below r). See the file comment for what it computes in the library's terms.
FP52_HD void mul_fr32_by_52(const uint32_t (&a)[8], const double (&t)[5], uint32_t (&out)[8]) {
    uint64_t al[5];
    u32_to_limbs52(a, al);
    double ad[5];
    FP52_UNROLL
    for (int k = 0; k < 5; k++) ad[k] = limb_to_double(al[k]);
    uint64_t o[5];
    mul_limbs<fr_params_t>(ad, t, o);
    limbs52_to_u32(o, out);
}

}  // namespace fp52
