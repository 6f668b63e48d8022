/* Fixed-base scalar multiplication on the GPU: one base point times many scalars, as
 * parameter generation needs (every query point is a generator times a secret evaluation).
 *
 * The base comes as a table of its byte-window multiples, built on the CPU (32 x 256 affine
 * points, 786 KB for G1): table[w * 256 + d] = base * d * 256^w (d = 0 is infinity, all
 * zeros). out[i] = base * scalars[i] is then the sum of one table entry per non-zero byte of
 * the canonical scalar, at most 32 mixed additions, each output computed by one thread and
 * converted to affine there. Scalars are blst_fr / blstrs::Scalar in Montgomery form
 * (converted on the GPU), results blst_p1_affine / blst_p2_affine (a zero scalar gives
 * infinity, all zeros). Host memory in and out, page-locked for the duration of the call
 * (which therefore waits for other work on the device: not for use beside proving); the work
 * runs on the current device in chunks, so n is not limited by device memory. */
#ifndef CUZK_FIXED_BASE_H
#define CUZK_FIXED_BASE_H

#include <stddef.h>

#include "cuzk/error.h"
#include "cuzk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Byte windows of a 256-bit scalar, and table entries per window. */
#define CUZK_FIXED_BASE_WINDOWS 32
#define CUZK_FIXED_BASE_DIGITS 256

/* out[i] = base * scalars[i], i < n, over G1; `table` holds
 * CUZK_FIXED_BASE_WINDOWS * CUZK_FIXED_BASE_DIGITS points as described above. */
cuzk_error_t cuzk_fixed_base_mul_g1(const cuzk_g1_affine_t* table, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g1_affine_t* out);

/* The same over G2. */
cuzk_error_t cuzk_fixed_base_mul_g2(const cuzk_g2_affine_t* table, const cuzk_fr_t* scalars, size_t n,
                                    cuzk_g2_affine_t* out);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_FIXED_BASE_H */
