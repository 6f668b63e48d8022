/* Field elements and G1 points as they cross the C ABI: exactly blst's memory layout.
 *
 * Every value is in Montgomery form with little-endian 64-bit limbs, as blst and blstrs store
 * them, so Rust slices of blstrs::Scalar, blstrs::G1Affine and blstrs::G1Projective are passed
 * by pointer with no conversion. (A few test entry points take or return canonical integers in
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

/* A CUDA stream (cudaStream_t); null means the legacy default stream. */
typedef struct CUstream_st* cuzk_stream_t;

#ifdef __cplusplus
}
#endif

#endif /* CUZK_TYPES_H */
