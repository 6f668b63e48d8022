/* The GPU part of the Groth16 prover: per-GPU locks, device-resident parameters, and the
 * proving entry points.
 *
 * For each circuit the GPU computes the four G1 sums of a proof:
 *     h    = sum_j H_j h_query[j]      (H = (A*B - C)/Z from the a, b, c evaluations, by NTTs)
 *     l    = sum_i aux_i l_query[i]
 *     a    = sum_k s_k a_query[k]      (inputs, then the aux values A's density selects)
 *     b_g1 = sum_k s_k b_g1_query[k]   (the inputs and aux values B's densities select)
 * and, when the circuit asks for it and the parameters carry b_g2, the G2 sum
 *     b_g2 = sum_k s_k b_g2_query[k]   (the same scalars as b_g1)
 * otherwise the caller (supraseal-c2 / bellperson-lite) computes B's G2 sum on the CPU
 * meanwhile. The caller assembles the proof. The scalars of l, a and b arrive split on the CPU
 * (`cuzk_msm_split_t`): zeros dropped, ones as a bitmap summed by batch addition, the rest as
 * (index, scalar) pairs summed by a Pippenger "tail" MSM; or the witness arrives whole
 * (`cuzk_witness_t`) and the GPU splits it into the same form.
 *
 * Concurrency: every GPU has one `gpu_locks` object shared by the workers proving on it. It
 * holds a memory lock (VRAM reservation and the uploads of a proof's inputs, on the worker's
 * own stream), a compute lock (the kernels) and the device's VRAM budget. A worker reserves the
 * proof's working set before it uploads anything; a reservation that does not fit waits for
 * other workers to release theirs, it never fails for lack of memory (one that could never fit
 * the budget is an error). No device-wide call (cudaDeviceSynchronize, cudaMalloc, cudaFree,
 * pool trims) is made on the proving path: scratch memory comes from the device's stream-ordered
 * pool, which keeps what it was given, and each worker synchronizes only its own stream. */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/error.h"
#include "cuzk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The per-GPU locks and VRAM budget (opaque). */
typedef struct cuzk_gpu_locks cuzk_gpu_locks_t;

/* Creates the locks of `device`. `vram_budget` is the number of bytes the provers of this
 * object may hold at once (resident parameters included); 0 means the device's free memory
 * now, less a margin of 5% of its total memory plus 512 MiB for the CUDA context, the NTT
 * tables and other processes. Also builds the device's NTT tables and sets its memory pool to
 * keep freed memory, so that nothing on the proving path allocates from the driver. */
cuzk_error_t create_gpu_locks(int device, size_t vram_budget, cuzk_gpu_locks_t** out);

/* Destroys locks made by create_gpu_locks. Every user (workers, parameters) must be gone. Null
 * is accepted. */
void destroy_gpu_locks(cuzk_gpu_locks_t* locks);

/* What a gpu_locks object has seen, for tests and metrics. */
typedef struct cuzk_gpu_locks_info_t {
    int device;
    /* The VRAM budget and the bytes reserved from it now (resident parameters included). */
    size_t vram_budget;
    size_t vram_reserved;
    /* The largest reservation total seen. */
    size_t vram_peak;
    /* Nanoseconds the compute lock has been held in total (for the GPU busy fraction). */
    uint64_t compute_busy_ns;
    /* Proofs whose GPU part completed, and those that failed. */
    uint64_t proofs_done;
    uint64_t proofs_failed;
} cuzk_gpu_locks_info_t;

/* Reads the counters of `locks`; null means the process-wide locks of `device` (see
 * generate_groth16_proofs_start_c). */
cuzk_error_t cuzk_gpu_locks_info(const cuzk_gpu_locks_t* locks, int device, cuzk_gpu_locks_info_t* out);

/* Testing and benchmarks: every proof made under `locks` takes the bounded-VRAM plan (the
 * parameters' bases in chunks of at most `chunk_points` points, rounded up to a multiple of
 * 64; b and c freed after the H pipeline), even where its whole working set would fit; with
 * `c_late` non-zero it also holds only two of a, b and c at once (c is uploaded after a*b is
 * formed). A chunk of 0 restores the automatic choice, which takes that plan only when the
 * whole working set does not fit the budget. */
cuzk_error_t cuzk_gpu_locks_force_chunks(cuzk_gpu_locks_t* locks, size_t chunk_points, int c_late);

/* The query vectors of a parameter set on one device (opaque). */
typedef struct cuzk_groth16_params cuzk_groth16_params_t;

/* Values of `residency` for cuzk_groth16_params_create. */
enum cuzk_residency {
    /* Resident when the vectors take at most half of the budget and fit in what is left of it. */
    CUZK_RESIDENCY_AUTO = 0,
    /* Always streamed per proof (leaves the VRAM to more workers or other parameter sets). */
    CUZK_RESIDENCY_STREAMED = 1,
};

/* Makes the query vectors of a parameter set available to the GPU provers of `locks` (null: the
 * process-wide locks of `device`): the four G1 ones and, optionally, b_g2 (null and 0 when B's
 * G2 sum always runs on the CPU; otherwise as long as b_g1). Resident vectors are uploaded once and stay (their bytes
 * are reserved from the budget until destroyed); otherwise the host arrays are page-locked
 * where possible and each proof streams them in. In that case the host arrays must stay valid
 * and unchanged until the handle is destroyed; when resident they may be released after this
 * call. h has 2^k - 1 points for a domain of 2^k (none for a domain of 1: a circuit of its input
 * constraints alone, whose H sum is the identity). */
cuzk_error_t cuzk_groth16_params_create(cuzk_gpu_locks_t* locks, int device, int residency, const cuzk_g1_affine_t* h,
                                        size_t h_len, const cuzk_g1_affine_t* l, size_t l_len,
                                        const cuzk_g1_affine_t* a, size_t a_len, const cuzk_g1_affine_t* b_g1,
                                        size_t b_g1_len, const cuzk_g2_affine_t* b_g2, size_t b_g2_len,
                                        cuzk_groth16_params_t** out);

/* Whether the vectors are resident on the device (1) or streamed per proof (0). */
int cuzk_groth16_params_resident(const cuzk_groth16_params_t* params);

/* Frees the device copies and the reservation. No proof may be using the handle. Null is
 * accepted. */
/* How many shifted copies of H's bases (2^(c j) H_i) the parameters keep on the device for H's
 * MSM: 1 when none (streamed, or no room in the budget's quarter), 0 for a null handle. */
uint32_t cuzk_groth16_params_h_copies(const cuzk_groth16_params_t* params);

void cuzk_groth16_params_destroy(cuzk_groth16_params_t* params);

/* One constraint matrix in compressed sparse rows: row r holds the terms
 * [row_ends[r - 1], row_ends[r]) (from 0 for row 0); a term is a column (`cols`: inputs first,
 * then aux variables) and an index into the coefficient table (`coeffs`). */
typedef struct cuzk_sparse_rows_t {
    const uint64_t* row_ends;
    const uint32_t* cols;
    const uint32_t* coeffs;
    size_t terms;
} cuzk_sparse_rows_t;

/* A circuit shape's constraint matrices A, B and C on one device (opaque). */
typedef struct cuzk_groth16_matrices cuzk_groth16_matrices_t;

/* Puts the matrices of a circuit shape (`num_constraints` rows each, over `num_inputs` inputs
 * and `num_aux` aux variables; `coeff_table` holds `coeff_len` distinct coefficients, blst
 * Montgomery form) on the device of `locks` (null: the process-wide locks of `device`), resident
 * and reserved from its VRAM budget until destroyed. Every row end, column and coefficient index
 * is checked; matrices that do not fit what is left of the budget now, or that would bring the
 * bytes held on the device (resident parameters and matrices) past three quarters of it, are
 * an error (the caller then computes a, b and c itself). The host arrays may be released after
 * this call. */
cuzk_error_t cuzk_groth16_matrices_create(cuzk_gpu_locks_t* locks, int device, size_t num_inputs, size_t num_aux,
                                          size_t num_constraints, const cuzk_sparse_rows_t* a,
                                          const cuzk_sparse_rows_t* b, const cuzk_sparse_rows_t* c,
                                          const cuzk_fr_t* coeff_table, size_t coeff_len,
                                          cuzk_groth16_matrices_t** out);

/* The same matrices, streamed: only the coefficient table goes on the device; the host arrays
 * stay where they are (page-locked here where the system allows it) and MUST outlive the
 * handle. Each proof copies them a chunk of whole rows at a time (at most `chunk_terms` terms
 * and rows per chunk, raised to the longest row; 0: 2^24) through two buffers of its own, so
 * that a card whose budget cannot hold them still evaluates a, b and c itself instead of the
 * host computing and holding them. Refused (an error; the caller then computes a, b and c)
 * where the evaluation would not fit: the witness, a, b and c of the circuit's domain and the
 * two chunk buffers must fit in three quarters of what the budget leaves beside the bytes
 * held on the device. Indices are checked as for resident matrices. */
cuzk_error_t cuzk_groth16_matrices_create_streamed(cuzk_gpu_locks_t* locks, int device, size_t num_inputs,
                                                   size_t num_aux, size_t num_constraints,
                                                   const cuzk_sparse_rows_t* a, const cuzk_sparse_rows_t* b,
                                                   const cuzk_sparse_rows_t* c, const cuzk_fr_t* coeff_table,
                                                   size_t coeff_len, size_t chunk_terms,
                                                   cuzk_groth16_matrices_t** out);

/* Whether the matrices are streamed (1) or resident (0; also for null). */
int cuzk_groth16_matrices_streamed(const cuzk_groth16_matrices_t* matrices);

/* The VRAM bytes the matrices hold (0 for null). */
size_t cuzk_groth16_matrices_bytes(const cuzk_groth16_matrices_t* matrices);

/* Frees the device copy and its reservation. No proof may be using the handle. Null is
 * accepted. */
void cuzk_groth16_matrices_destroy(cuzk_groth16_matrices_t* matrices);

/* The scalars of one G1 MSM over a query vector of `len` points, split on the CPU: bit k of
 * `ones` (64-bit words, bit k % 64 of word k / 64, at least ceil(len / 64) words) is set when
 * point k's scalar is one; `other_index[j]` < len is the point of `other_scalars[j]` (blst
 * Montgomery form) for the scalars that are neither zero nor one. Points in neither list have
 * scalar zero. */
typedef struct cuzk_msm_split_t {
    const uint64_t* ones;
    size_t ones_words;
    const uint32_t* other_index;
    const cuzk_fr_t* other_scalars;
    size_t other_count;
} cuzk_msm_split_t;

/* A circuit's witness, for the GPU to split the l, a and b_g1 scalars itself
 * (cuzk_groth16_circuit_t.witness): the `num_inputs` input values and the `num_aux` aux values
 * (blst Montgomery form), and which of them the A and B queries have points for, as bitmaps
 * (64-bit words, bit k % 64 of word k / 64; bits past the end are ignored). The l scalars are
 * the aux values; the a scalars every input, then the aux values `a_aux_density` selects; the
 * b_g1 scalars the inputs `b_input_density` selects, then the aux values `b_aux_density`
 * selects. Each must count as many values as the parameters' vector has points. */
typedef struct cuzk_witness_t {
    const cuzk_fr_t* inputs;
    size_t num_inputs;
    const cuzk_fr_t* aux;
    size_t num_aux;
    const uint64_t* a_aux_density;
    const uint64_t* b_input_density;
    const uint64_t* b_aux_density;
} cuzk_witness_t;

/* One circuit's inputs to the GPU part: the evaluations of A, B and C on the domain (`abc_len`
 * each, at most the domain size; the rest is zero) and the split scalars of the l, a and b_g1
 * MSMs, whose lengths are those of the parameters' vectors. With `b_g2_on_gpu` non-zero the
 * b_g1 split is also summed over b_g2 (the parameters must carry b_g2).
 *
 * With `witness` non-null, the three splits must be empty (all zero): the witness is uploaded
 * once and the GPU splits it (worth it for a witness of mostly full-width values, whose
 * splits are each nearly as large as the witness; a witness of bits is cheaper to split on
 * the host, where its splits shrink to bitmaps). A circuit the GPU would have to prove on the
 * bounded-VRAM plan (whose chunks find their scalars in host splits) is refused before any
 * work with CUZK_ERR_SPLIT_ON_HOST: split it on the host and call again.
 *
 * With `matrices` non-null, a, b and c must be null and `abc_len` 0: the GPU evaluates
 * a = A w, b = B w, c = C w itself, with the witness w read from `witness`, or else from the
 * splits (the inputs are the first num_inputs points of the a split, the aux values the l
 * split, which then must have one point per aux variable). */
typedef struct cuzk_groth16_circuit_t {
    const cuzk_fr_t* a;
    const cuzk_fr_t* b;
    const cuzk_fr_t* c;
    size_t abc_len;
    cuzk_msm_split_t l;
    cuzk_msm_split_t a_query;
    cuzk_msm_split_t b_g1;
    int b_g2_on_gpu;
    const cuzk_groth16_matrices_t* matrices;
    const cuzk_witness_t* witness;
} cuzk_groth16_circuit_t;

/* The GPU's results for one circuit (Jacobian, blst_p1 / blst_p2 layouts). `b_g2` is the
 * identity (all zeros) when the circuit did not ask for it. */
typedef struct cuzk_groth16_sums_t {
    cuzk_g1_projective_t h;
    cuzk_g1_projective_t l;
    cuzk_g1_projective_t a;
    cuzk_g1_projective_t b_g1;
    cuzk_g2_projective_t b_g2;
} cuzk_groth16_sums_t;

/* Where the GPU part's time went, in milliseconds, summed over the circuits of a call. */
typedef struct cuzk_groth16_timings_t {
    /* Waiting for the memory lock and for the VRAM reservation. */
    float wait_memory_ms;
    /* Host-to-device copies of the inputs (and streamed parameters), under the memory lock. */
    float upload_ms;
    /* Waiting for the compute lock. */
    float wait_compute_ms;
    /* Kernels, timed with CUDA events on the worker's stream: the splits of a witness given
     * whole (circuits with `witness` only) and a, b and c from the matrices (circuits with
     * `matrices` only), then the H pipeline and the MSMs. */
    float abc_ms;
    float ntt_ms;
    float msm_h_ms;
    float msm_l_ms;
    float msm_a_ms;
    float msm_b_g1_ms;
    /* B's G2 sum, for the circuits that ran it on the GPU. */
    float msm_b_g2_ms;
    /* Circuits proved with the bounded-VRAM plan (bases in chunks), and the most points per
     * chunk among them (0 when none). */
    uint32_t chunked_circuits;
    uint64_t chunk_points;
    /* Host: from the call to the first circuit's memory phase (checks, the CUDA stream made). */
    float setup_ms;
    /* GPU: from a circuit's first operation on its stream (its uploads begin) to the start of
     * its kernels: the copies, and any wait behind other work on the device. */
    float queued_ms;
    /* Host: from the last kernel enqueued to the results in host memory (what is left of the
     * kernels, the copies back, the stream's sync). */
    float results_ms;
} cuzk_groth16_timings_t;

/* A proof batch whose GPU part has run (opaque). */
typedef struct cuzk_groth16_pending cuzk_groth16_pending_t;

/* Called by generate_groth16_proofs_start_c on its own thread right after circuit
 * `circuit`'s inputs have left the host (its memory phase is over; its kernels have not
 * run), with the `ctx` given to start. It lets the caller hold back CPU work that would
 * compete with the copies (the uploads copy through pinned buffers with several threads).
 * It must return quickly and must not call back into this library. */
typedef void (*cuzk_uploaded_fn)(void* ctx, size_t circuit);

/* Values of `priority` for generate_groth16_proofs_start_c. */
enum cuzk_priority {
    /* Uploads under the memory lock, kernels under the compute lock: proofs take the GPU in turn. */
    CUZK_PRIORITY_NORMAL = 0,
    /* For a proof with a deadline (Filecoin's WinningPoSt): one at a time per device, under a
     * lock of its own instead of those two, with its kernels on a stream of the device's
     * greatest priority, so that they run beside (and are scheduled before) the kernels of the
     * proof holding the compute lock, instead of waiting for them to end. Its VRAM comes from
     * the same budget; while it waits for room, ordinary proofs wait behind it. */
    CUZK_PRIORITY_URGENT = 1,
};

/* Runs the GPU part for `count` circuits of the same shape against `params`: for each circuit,
 * under `locks` (null: the process-wide locks of the parameters' device), reserve VRAM and
 * upload its inputs under the memory lock, then run the NTTs, MSMs and batch additions under
 * the compute lock (or as `priority` says), on a stream of this call's own. Returns when the
 * GPU work is done; the caller's buffers are no longer used after it returns. `uploaded` (may
 * be null) is called after each circuit's uploads. On success `*out` owns the results until
 * generate_groth16_proofs_finish_c or generate_groth16_proofs_destroy_c. */
cuzk_error_t generate_groth16_proofs_start_c(cuzk_gpu_locks_t* locks, const cuzk_groth16_params_t* params,
                                             const cuzk_groth16_circuit_t* circuits, size_t count,
                                             int priority, cuzk_uploaded_fn uploaded, void* uploaded_ctx,
                                             cuzk_groth16_pending_t** out);

/* Testing: holds the compute lock of `locks` for `ms` milliseconds, then returns (as a long
 * proof's kernels would hold it). */
cuzk_error_t cuzk_gpu_locks_hold_compute(cuzk_gpu_locks_t* locks, uint32_t ms);

/* Copies the results of a pending batch (`count` as given to start), and its timings (may be
 * null) out, and frees the handle, also when it reports an error. `unsatisfied` (may be
 * null; `count` entries) receives, per circuit, the first constraint whose evaluations have
 * a*b != c, checked on the GPU before H is computed, or UINT64_MAX when every constraint
 * holds. The sums of an unsatisfied circuit must not become a proof: it would not verify. */
cuzk_error_t generate_groth16_proofs_finish_c(cuzk_groth16_pending_t* pending, cuzk_groth16_sums_t* sums,
                                              size_t count, uint64_t* unsatisfied, cuzk_groth16_timings_t* timings);

/* Frees a pending batch that will not be finished. Null is accepted. */
void generate_groth16_proofs_destroy_c(cuzk_groth16_pending_t* pending);

/* start then finish, in one call. */
cuzk_error_t generate_groth16_proofs_c(cuzk_gpu_locks_t* locks, const cuzk_groth16_params_t* params,
                                       const cuzk_groth16_circuit_t* circuits, size_t count,
                                       cuzk_groth16_sums_t* sums, uint64_t* unsatisfied,
                                       cuzk_groth16_timings_t* timings);

/* Testing: the next `count` circuits proved in this process fail in their compute phase with
 * a real (non-sticky) CUDA launch error, as a kernel fault would; 0 cancels. */
void cuzk_groth16_inject_faults(uint32_t count);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GROTH16_H */
