/* Test and benchmark entry points: element-wise field and G1 operations on the GPU, for tests
 * that compare them with blst/blstrs on the CPU, and NTT timings for the benchmark.
 *
 * All pointers are host pointers to `n` elements; the functions copy in, run one kernel over
 * the arrays and copy out. They are not meant for production paths. */
#ifndef CUZK_TESTING_H
#define CUZK_TESTING_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/error.h"
#include "cuzk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element-wise field operations: out[i] = op(a[i], b[i]) (b is ignored, and may be null, by
 * the unary ones). */
enum cuzk_test_field_op {
    CUZK_TEST_ADD = 0,
    CUZK_TEST_SUB = 1,
    CUZK_TEST_MUL = 2,
    CUZK_TEST_SQR = 3,
    CUZK_TEST_NEG = 4,
    CUZK_TEST_DBL = 5,
    /* Montgomery form in, the canonical integer out (little-endian limbs, not Montgomery). */
    CUZK_TEST_TO_CANONICAL = 6,
    /* A canonical integer below the modulus in, its Montgomery form out. */
    CUZK_TEST_FROM_CANONICAL = 7,
    /* out[i] = a[i]^-1 (zero for zero): Fermat inversion, slow. */
    CUZK_TEST_INVERSE = 8,
    /* out[i] = mul_sub(a, b, b, a + b) = a*b - b*(a + b): the curve formulas' "a*b - c*d" with
     * one reduction for both products (so -b^2, reached the long way). */
    CUZK_TEST_MUL_SUB = 9,
};

cuzk_error_t cuzk_test_fr_op(int op, const cuzk_fr_t* a, const cuzk_fr_t* b, cuzk_fr_t* out, size_t n);
cuzk_error_t cuzk_test_fp_op(int op, const cuzk_fp_t* a, const cuzk_fp_t* b, cuzk_fp_t* out, size_t n);

/* Fp's redundant form (values below 2p, ff/mont.cuh), which G1's bucket sums keep: out[i] =
 * op(a'[i], b'[i]) by the redundant operations, brought back to [0, p), where a'[i] is a[i] + p
 * (the other representative) for odd i and a[i] for even i, and b'[i] is b[i] + p where i & 2
 * is set. For ADD, SUB, MUL, SQR, DBL and MUL_SUB (as CUZK_TEST_MUL_SUB forms it); the others
 * are refused. */
cuzk_error_t cuzk_test_fp_lazy_op(int op, const cuzk_fp_t* a, const cuzk_fp_t* b, cuzk_fp_t* out, size_t n);
/* is_zero[i] = the redundant form's zero test on a'[i] (as above), as 0 or 1. */
cuzk_error_t cuzk_test_fp_lazy_is_zero(const cuzk_fp_t* a, uint8_t* is_zero, size_t n);

/* Predicates: eq[i] = (a[i] == b[i]), is_zero[i] = (a[i] == 0), as 0 or 1. */
cuzk_error_t cuzk_test_fr_cmp(const cuzk_fr_t* a, const cuzk_fr_t* b, uint8_t* eq, uint8_t* is_zero, size_t n);
cuzk_error_t cuzk_test_fp_cmp(const cuzk_fp_t* a, const cuzk_fp_t* b, uint8_t* eq, uint8_t* is_zero, size_t n);

/* Element-wise G1 operations through the XYZZ accumulator, results in Jacobian (blst_p1)
 * form. Projective inputs are converted to XYZZ on the GPU. */
enum cuzk_test_g1_op {
    /* out = a + b (two accumulators). */
    CUZK_TEST_G1_ADD = 0,
    /* out = a + b_affine (mixed addition). */
    CUZK_TEST_G1_ADD_AFFINE = 1,
    /* out = 2a. */
    CUZK_TEST_G1_DBL = 2,
    /* out = 2 b_affine (affine doubling). */
    CUZK_TEST_G1_DBL_AFFINE = 3,
    /* out = a, through XYZZ and back (the conversions alone). */
    CUZK_TEST_G1_ROUNDTRIP = 4,
    /* out = a + b_affine by the bucket sums' mixed addition in Fp's redundant form, a's XYZZ
     * coordinates each raised by p for odd indices. */
    CUZK_TEST_G1_LAZY_ADD_AFFINE = 5,
};

/* `a`, `b` and `b_affine` may be null where the operation does not read them. */
cuzk_error_t cuzk_test_g1_op(int op, const cuzk_g1_projective_t* a, const cuzk_g1_projective_t* b,
                             const cuzk_g1_affine_t* b_affine, cuzk_g1_projective_t* out, size_t n);

/* The G1 MSM (host memory, as cuzk_msm_g1) with windows of `window_bits` bits (4 to 22)
 * instead of the planned ones, so that tests can reach every window at small sizes; over
 * `copies` shifted copies of the bases (1: none; up to the window count), made on the GPU from
 * `points` (2^(c j) P), each run of `copies` windows sharing one set of buckets. */
cuzk_error_t cuzk_test_msm_g1_window(const cuzk_g1_affine_t* points, const cuzk_fr_t* scalars, size_t n,
                                     uint32_t window_bits, uint32_t copies, cuzk_g1_projective_t* out);

/* NTT timings, for the benchmark. Random data is generated on the GPU; each figure is the
 * median over `iters` timed runs (CUDA events) after `warmup` untimed ones. */
typedef struct cuzk_ntt_bench_t {
    /* One in-place forward NTT of data already on the device. */
    float ntt_ms;
    /* Host-to-device copy of the input from pinned memory, then the NTT. */
    float ntt_with_h2d_ms;
    /* The H pipeline (7 NTTs and the pointwise step) on device buffers; 0 if not asked. */
    float h_ms;
} cuzk_ntt_bench_t;

cuzk_error_t cuzk_bench_ntt(uint32_t log_n, uint32_t warmup, uint32_t iters, int with_h, cuzk_ntt_bench_t* out);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_TESTING_H */
