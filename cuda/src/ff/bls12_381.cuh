// The two BLS12-381 fields as instances of mont_t: Fp (base field, 381 bits, 12 limbs) and
// Fr (scalar field, 255 bits, 8 limbs), plus the Fr constants the NTT needs.
//
// The limbs are the published moduli and their Montgomery constants (R = 2^384 for Fp,
// 2^256 for Fr); the Fr roots of unity and the generator are blstrs' `PrimeField`
// constants (ROOT_OF_UNITY, ROOT_OF_UNITY_INV, TWO_INV, MULTIPLICATIVE_GENERATOR = 7),
// already in Montgomery form, as 32-bit little-endian limbs.
#pragma once

#include <cstdint>

#include "ff/mont.cuh"

// Defines `static constexpr uint32_t name(int i)` returning limb i of a constant table.
// Indexed with unrolled loop counters, each limb folds into an immediate operand.
#define CUZK_LIMBS(name, n, ...)                                                \
    __host__ __device__ static constexpr uint32_t name(int i) {                 \
        constexpr uint32_t v[n] = {__VA_ARGS__};                                \
        return v[i];                                                            \
    }

namespace cuzk {

// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
struct fp_params_t {
    static constexpr int N = 12;
    CUZK_LIMBS(p, 12, 0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u,
               0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau)
    CUZK_LIMBS(one, 12, 0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u,
               0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u)
    CUZK_LIMBS(r2, 12, 0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u, 0x4c95b6d5u, 0x8de5476cu,
               0x939d83c0u, 0x67eb88a9u, 0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u)
    static constexpr uint32_t m0 = 0xfffcfffdu;  // -p^-1 mod 2^32
};

// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
struct fr_params_t {
    static constexpr int N = 8;
    CUZK_LIMBS(p, 8, 0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u, 0x3339d808u,
               0x299d7d48u, 0x73eda753u)
    CUZK_LIMBS(one, 8, 0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu,
               0xacc5056fu, 0x1824b159u)
    CUZK_LIMBS(r2, 8, 0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u,
               0x9f59ff11u, 0x0748d9d9u)
    static constexpr uint32_t m0 = 0xffffffffu;  // -r^-1 mod 2^32

    // A primitive 2^32-th root of unity (blstrs ROOT_OF_UNITY), its inverse, 1/2 and the
    // coset generator g = 7, all in Montgomery form.
    CUZK_LIMBS(root_of_unity, 8, 0x5f0e466au, 0xb9b58d8cu, 0x1819d7ecu, 0x5b1b4c80u, 0x52a31e64u,
               0x0af53ae3u, 0x19e9b27bu, 0x5bf3addau)
    CUZK_LIMBS(root_of_unity_inv, 8, 0xdcf3219au, 0x4256481au, 0x96b6cad3u, 0x45f37b7fu, 0x5f7a3b27u,
               0xf9c3f1d7u, 0x658afd43u, 0x2d2fc049u)
    CUZK_LIMBS(two_inv, 8, 0xffffffffu, 0x00000000u, 0x0001a401u, 0xac425bfdu, 0xf65e27fau, 0xccc627f7u,
               0xd66282b7u, 0x0c1258acu)
    CUZK_LIMBS(generator, 8, 0xfffffff1u, 0x0000000eu, 0x00189c0fu, 0x17e363d3u, 0x6f8457b0u, 0xff9c5787u,
               0x8fc5a8c4u, 0x35133220u)
    static constexpr uint32_t two_adicity = 32;  // S: 2^S divides r - 1
};

using fp_t = mont_t<fp_params_t>;
using fr_t = mont_t<fr_params_t>;

static_assert(sizeof(fp_t) == 48, "fp_t must match blst_fp");
static_assert(sizeof(fr_t) == 32, "fr_t must match blst_fr");

// The Fr constants above as elements.
#define CUZK_FR_CONST(fn, table)                                                \
    __device__ __forceinline__ fr_t fn() {                                      \
        fr_t r;                                                                 \
        _Pragma("unroll") for (int i = 0; i < fr_t::N; i++) r.l[i] = fr_params_t::table(i); \
        return r;                                                               \
    }
CUZK_FR_CONST(fr_root_of_unity, root_of_unity)
CUZK_FR_CONST(fr_root_of_unity_inv, root_of_unity_inv)
CUZK_FR_CONST(fr_two_inv, two_inv)
CUZK_FR_CONST(fr_generator, generator)
#undef CUZK_FR_CONST

}  // namespace cuzk
