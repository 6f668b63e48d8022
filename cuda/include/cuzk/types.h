/* Field elements and G1 and G2 points as they cross the C ABI: exactly blst's memory layout.
 *
 * Every value is in Montgomery form with little-endian 64-bit limbs, as blst and blstrs store
 * them, so Rust slices of blstrs::Scalar, G1Affine, G2Affine and their projective forms are
 * passed by pointer with no conversion. (A few test entry points take or return canonical integers in
 * the same structs; they say so.) */
#ifndef CUZK_TYPES_H
#define CUZK_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An element of Fr, the scalar field (255 bits): blst_fr / blstrs::Scalar. */
typedef struct cuzk_fr_t {
    uint64_t l[4];
} cuzk_fr_t;

/* An element of Fp, the base field (381 bits): blst_fp / blstrs::Fp. */
typedef struct cuzk_fp_t {
    uint64_t l[6];
} cuzk_fp_t;

/* A G1 point in affine coordinates: blst_p1_affine / blstrs::G1Affine. The point at
 * infinity is all zeros. */
typedef struct cuzk_g1_affine_t {
    cuzk_fp_t x;
    cuzk_fp_t y;
} cuzk_g1_affine_t;

/* A G1 point in Jacobian coordinates (x = X/Z^2, y = Y/Z^3): blst_p1 / blstrs::G1Projective.
 * The point at infinity has Z = 0. */
typedef struct cuzk_g1_projective_t {
    cuzk_fp_t x;
    cuzk_fp_t y;
    cuzk_fp_t z;
} cuzk_g1_projective_t;

/* An element of Fp2 = Fp[u]/(u^2 + 1), c0 + c1*u: blst_fp2 / blstrs::Fp2. */
typedef struct cuzk_fp2_t {
    cuzk_fp_t c0;
    cuzk_fp_t c1;
} cuzk_fp2_t;

/* A G2 point in affine coordinates: blst_p2_affine / blstrs::G2Affine. The point at
 * infinity is all zeros. */
typedef struct cuzk_g2_affine_t {
    cuzk_fp2_t x;
    cuzk_fp2_t y;
} cuzk_g2_affine_t;

/* A G2 point in Jacobian coordinates: blst_p2 / blstrs::G2Projective. The point at infinity
 * has Z = 0. */
typedef struct cuzk_g2_projective_t {
    cuzk_fp2_t x;
    cuzk_fp2_t y;
    cuzk_fp2_t z;
} cuzk_g2_projective_t;

/* A CUDA stream (cudaStream_t); null means the legacy default stream. */
typedef struct CUstream_st* cuzk_stream_t;

#ifdef __cplusplus
}
#endif

#endif /* CUZK_TYPES_H */
