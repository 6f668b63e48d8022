// Constraint matrices resident on a device, and the kernels that rebuild a proof's witness
// and evaluate a = A w, b = B w, c = C w from them (see matrices.cuh).
#include <algorithm>
#include <memory>
#include <string>

#include "groth16/matrices.cuh"
#include "msm/msm.cuh"
#include "util/bitmap.cuh"
#include "util/resources.cuh"

using cuzk::fr_t;

namespace cuzk::groth16 {
namespace {

constexpr size_t ALIGN = 256;

size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

size_t rows_bytes(size_t rows, size_t terms) {
    return round_up(rows * sizeof(uint64_t)) + 2 * round_up(terms * sizeof(uint32_t));
}

// Every index a kernel will follow is checked here, once, so that a corrupt matrix is an
// error at creation instead of a read outside the witness or the table in every proof.
// Returns the most terms a row holds.
size_t check_rows(const cuzk_sparse_rows_t& m, const char* name, size_t rows, size_t variables, size_t coeff_len) {
    const std::string what = std::string("matrices: ") + name;
    CUZK_REQUIRE(rows == 0 || m.row_ends != nullptr, what + ": null row ends");
    CUZK_REQUIRE(m.terms == 0 || (m.cols != nullptr && m.coeffs != nullptr), what + ": null terms");
    uint64_t previous = 0, longest = 0;
    for (size_t r = 0; r < rows; r++) {
        CUZK_REQUIRE(m.row_ends[r] >= previous, what + ": row " + std::to_string(r) + " ends before it starts");
        longest = std::max(longest, m.row_ends[r] - previous);
        previous = m.row_ends[r];
    }
    CUZK_REQUIRE(previous == m.terms, what + ": the rows hold " + std::to_string(previous) + " terms, " +
                                          std::to_string(m.terms) + " were given");
    for (size_t t = 0; t < m.terms; t++) {
        CUZK_REQUIRE(m.cols[t] < variables, what + ": term " + std::to_string(t) + " names column " +
                                                std::to_string(m.cols[t]) + " of " + std::to_string(variables));
        CUZK_REQUIRE(m.coeffs[t] < coeff_len, what + ": term " + std::to_string(t) + " names coefficient " +
                                                  std::to_string(m.coeffs[t]) + " of " + std::to_string(coeff_len));
    }
    return size_t(longest);
}

// Places one matrix at `at` in the device block, enqueues its upload, and returns the
// address after it.
uint8_t* place(device_rows_t& d, const cuzk_sparse_rows_t& h, size_t rows, uint8_t* at, cudaStream_t s) {
    auto copy = [&](const void* src, size_t bytes) {
        if (bytes) CUZK_CUDA_CHECK(cudaMemcpyAsync(at, src, bytes, cudaMemcpyHostToDevice, s));
        uint8_t* here = at;
        at += round_up(bytes);
        return here;
    };
    d.row_ends = reinterpret_cast<const uint64_t*>(copy(h.row_ends, rows * sizeof(uint64_t)));
    d.cols = reinterpret_cast<const uint32_t*>(copy(h.cols, h.terms * sizeof(uint32_t)));
    d.coeffs = reinterpret_cast<const uint32_t*>(copy(h.coeffs, h.terms * sizeof(uint32_t)));
    d.terms = h.terms;
    return at;
}

// Page-locks `bytes` at `p` for full-speed chunk copies, where the system allows it (it may
// refuse, or another handle may have locked the same arrays: then copies are slower, or use
// that handle's lock while it lives; both are correct).
void pin(matrices_t& m, const void* p, size_t bytes) {
    if (bytes == 0) return;
    void* at = const_cast<void*>(p);
    // device-wide-ok: once per streamed matrices, when they are made for a device
    const cudaError_t err = cudaHostRegister(at, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
    if (err == cudaSuccess) m.pinned.push_back(at);
    else (void)cudaGetLastError();
}

// A streamed chunk's terms and rows when none is given: 2^24 (two buffers of 256 MiB).
constexpr size_t DEFAULT_STREAM_CHUNK = size_t(1) << 24;

std::unique_ptr<matrices_t> make_matrices(cuzk_gpu_locks* given, int device, size_t num_inputs, size_t num_aux,
                                          size_t rows, const cuzk_sparse_rows_t* (&m)[3], const fr_t* table,
                                          size_t coeff_len, bool streamed, size_t stream_chunk) {
    const char* names[3] = {"A", "B", "C"};
    CUZK_REQUIRE(num_inputs >= 1, "matrices: no inputs (input 0 is the constant one)");
    CUZK_REQUIRE(num_inputs + num_aux <= (size_t(1) << 32), "matrices: more variables than 32-bit columns hold");
    CUZK_REQUIRE(coeff_len == 0 || table != nullptr, "matrices: null coefficient table");
    for (int i = 0; i < 3; i++) CUZK_REQUIRE(m[i] != nullptr, std::string("matrices: null ") + names[i]);
    cuzk_gpu_locks* locks = locks_or_default(given, device);
    CUZK_REQUIRE(locks->device == device, "matrices: the locks belong to another device");
    CUZK_CUDA_CHECK(cudaSetDevice(device));

    auto out = std::make_unique<matrices_t>();
    out->device = device;
    out->num_inputs = num_inputs;
    out->num_aux = num_aux;
    out->num_constraints = rows;
    out->coeff_len = coeff_len;
    out->streamed = streamed;
    out->stream_chunk = streamed ? (stream_chunk ? stream_chunk : DEFAULT_STREAM_CHUNK) : 0;
    size_t total = round_up(coeff_len * sizeof(fr_t));
    if (streamed) {
        // Useful only where a proof's evaluation fits: the witness, a, b and c and the chunk
        // buffers within three quarters of what the held bytes leave of the budget (the rest
        // is the split scalars' and the pool's). Elsewhere the host computes a, b and c.
        size_t n = 1;
        while (n < rows) n *= 2;
        const size_t evaluation =
            (num_inputs + num_aux + 3 * n) * sizeof(fr_t) + out->evaluation_bytes() + total;
        const size_t held = locks->vram.held(), budget = locks->vram.total();
        const size_t room = budget > held ? budget - held : 0;
        CUZK_REQUIRE(evaluation <= room / 4 * 3,
                     "matrices: evaluating them on GPU " + std::to_string(device) + " takes " +
                         std::to_string(evaluation) + " bytes (the witness, a, b and c and the chunk buffers), " +
                         "more than three quarters of the " + std::to_string(room) +
                         " bytes its VRAM budget leaves beside what it holds");
    } else {
        for (int i = 0; i < 3; i++) total += rows_bytes(rows, m[i]->terms);
    }
    // Resident bytes must leave a quarter of the budget to the proofs' working sets (the
    // parameters take at most half): a proof that could never fit beside them fails.
    // Held before the indices are checked: that check reads every term on the CPU (seconds
    // for the largest circuits), and a budget that cannot hold the matrices now is the common
    // refusal, which a caller may retry later. The block is given back if the check fails.
    cudaError_t err = cudaSuccess;
    const auto got = out->block.try_allocate(locks->vram, device, total, locks->vram.total() / 4 * 3, &err);
    CUZK_REQUIRE(got != held_block_t::result_t::over_limit,
                 "matrices: " + std::to_string(total) + " bytes beside the " + std::to_string(locks->vram.held()) +
                     " held on GPU " + std::to_string(device) + " would leave less than a quarter of its " +
                     std::to_string(locks->vram.total()) + "-byte VRAM budget to proofs");
    CUZK_REQUIRE(got != held_block_t::result_t::no_room,
                 "matrices: " + std::to_string(total) + " bytes do not fit what is left of GPU " +
                     std::to_string(device) + "'s VRAM budget (" + std::to_string(locks->vram.reserved()) + " of " +
                     std::to_string(locks->vram.total()) + " reserved)");
    if (got == held_block_t::result_t::alloc_failed) CUZK_CUDA_CHECK(err);
    size_t longest = 0;
    for (int i = 0; i < 3; i++)
        longest = std::max(longest, check_rows(*m[i], names[i], rows, num_inputs + num_aux, coeff_len));
    stream_t s;
    uint8_t* at = out->block.get();
    if (coeff_len)
        CUZK_CUDA_CHECK(cudaMemcpyAsync(at, table, coeff_len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    out->coeff_table = reinterpret_cast<const fr_t*>(at);
    at += round_up(coeff_len * sizeof(fr_t));
    if (streamed) {
        // A chunk holds at least one whole row.
        out->stream_chunk = std::max(out->stream_chunk, longest);
        for (int i = 0; i < 3; i++) {
            out->host[i] = *m[i];
            pin(*out, m[i]->row_ends, rows * sizeof(uint64_t));
            pin(*out, m[i]->cols, m[i]->terms * sizeof(uint32_t));
            pin(*out, m[i]->coeffs, m[i]->terms * sizeof(uint32_t));
        }
    } else {
        at = place(out->a, *m[0], rows, at, s);
        at = place(out->b, *m[1], rows, at, s);
        place(out->c, *m[2], rows, at, s);
    }
    s.sync();
    return out;
}

__global__ void witness_ones_kernel(const uint64_t* a_ones, size_t num_inputs, const uint64_t* l_ones, size_t num_aux,
                                    fr_t* w) {
    const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (k >= num_inputs + num_aux) return;
    const bool one = k < num_inputs ? bit(a_ones, k) : bit(l_ones, k - num_inputs);
    w[k] = one ? fr_t::one() : fr_t::zero();
}

// w[offset + index[j]] = scalars[j] for the pairs with index[j] < limit (the a split's later
// points are aux values A selects, which the l split also carries).
__global__ void witness_scatter_kernel(const uint32_t* index, const fr_t* scalars, size_t count, size_t limit,
                                       size_t offset, fr_t* w) {
    const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j < count && index[j] < limit) w[offset + index[j]] = scalars[j];
}

// One thread per row of a run of `rows` rows. Row r's terms are [row_ends[r - 1], row_ends[r])
// (from `first` for row 0), numbered in the whole matrix; `cols` and `coeffs` hold the terms
// from number `first` on (0 for resident matrices, the chunk's first term for a streamed one).
// Most terms of a Filecoin circuit have coefficient one or minus one and a bit for a value:
// those cost an addition or nothing, and only the rest a multiplication. The coefficients are
// told apart by value, so the table's order does not matter.
__global__ void product_kernel(const uint64_t* row_ends, const uint32_t* cols, const uint32_t* coeffs, uint64_t first,
                               const fr_t* table, const fr_t* w, size_t rows, fr_t* out) {
    const size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (r >= rows) return;
    const fr_t one = fr_t::one();
    const fr_t minus_one = fr_t::zero() - one;
    const uint64_t end = row_ends[r];
    fr_t acc = fr_t::zero();
    for (uint64_t t = r ? row_ends[r - 1] : first; t < end; t++) {
        const fr_t v = w[cols[t - first]];
        if (v.is_zero()) continue;
        const fr_t k = table[coeffs[t - first]];
        if (k == one) acc += v;
        else if (k == minus_one) acc -= v;
        else if (v == one) acc += k;
        else acc += v * k;
    }
    out[r] = acc;
}

void launch_products(const uint64_t* row_ends, const uint32_t* cols, const uint32_t* coeffs, uint64_t first,
                     const fr_t* table, const fr_t* w, size_t rows, fr_t* out, cudaStream_t stream) {
    product_kernel<<<msm::blocks_for(rows, 128), 128, 0, stream>>>(row_ends, cols, coeffs, first, table, w, rows,
                                                                   out);
    CUZK_LAUNCH_CHECK();
}

// Streamed matrices: each matrix a chunk of whole rows at a time (at most stream_chunk rows
// and terms), copied on a stream of its own into one of two buffers while the products of
// the chunk in the other buffer compute on `stream`.
void evaluate_streamed(const matrices_t& m, const fr_t* d_w, fr_t* const (&outs)[3], cudaStream_t stream) {
    const size_t chunk = m.stream_chunk;
    const size_t rows = m.num_constraints;
    dev_ptr_t<uint64_t> ends[2] = {dev_ptr_t<uint64_t>(chunk, stream), dev_ptr_t<uint64_t>(chunk, stream)};
    dev_ptr_t<uint32_t> cols[2] = {dev_ptr_t<uint32_t>(chunk, stream), dev_ptr_t<uint32_t>(chunk, stream)};
    dev_ptr_t<uint32_t> coeffs[2] = {dev_ptr_t<uint32_t>(chunk, stream), dev_ptr_t<uint32_t>(chunk, stream)};
    stream_t copy;
    event_t allocated, loaded[2], drained[2];
    bool used[2] = {false, false};
    allocated.record(stream);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy, allocated));
    unsigned next = 0;
    for (int i = 0; i < 3; i++) {
        if (!outs[i]) continue;
        const cuzk_sparse_rows_t& h = m.host[i];
        for (size_t r0 = 0; r0 < rows;) {
            const uint64_t t0 = r0 ? h.row_ends[r0 - 1] : 0;
            // The rows from r0 that end within `chunk` terms of t0 (row ends ascend).
            const uint64_t* last = h.row_ends + std::min(rows, r0 + chunk);
            const size_t r1 = size_t(std::upper_bound(h.row_ends + r0, last, t0 + chunk) - h.row_ends);
            CUZK_REQUIRE(r1 > r0, "matrices: a row longer than the stream chunk");  // creation prevents it
            const uint64_t t1 = h.row_ends[r1 - 1];
            const unsigned b = next;
            // The products that last read buffer b are done before the copy overwrites it.
            if (used[b]) CUZK_CUDA_CHECK(cudaStreamWaitEvent(copy, drained[b]));
            CUZK_CUDA_CHECK(cudaMemcpyAsync(ends[b].get(), h.row_ends + r0, (r1 - r0) * sizeof(uint64_t),
                                            cudaMemcpyHostToDevice, copy));
            if (t1 > t0) {
                CUZK_CUDA_CHECK(cudaMemcpyAsync(cols[b].get(), h.cols + t0, (t1 - t0) * sizeof(uint32_t),
                                                cudaMemcpyHostToDevice, copy));
                CUZK_CUDA_CHECK(cudaMemcpyAsync(coeffs[b].get(), h.coeffs + t0, (t1 - t0) * sizeof(uint32_t),
                                                cudaMemcpyHostToDevice, copy));
            }
            loaded[b].record(copy);
            CUZK_CUDA_CHECK(cudaStreamWaitEvent(stream, loaded[b]));
            launch_products(ends[b], cols[b], coeffs[b], t0, m.coeff_table, d_w, r1 - r0, outs[i] + r0, stream);
            drained[b].record(stream);
            used[b] = true;
            next ^= 1;
            r0 = r1;
        }
    }
    // Every copy is waited for on `stream`, where the buffers are freed; the copy stream may
    // go (its work is done before theirs).
}

}  // namespace

void witness_from_splits(const matrices_t& m, const uint64_t* d_a_ones, const uint32_t* d_a_index,
                         const fr_t* d_a_scalars, size_t a_count, const uint64_t* d_l_ones,
                         const uint32_t* d_l_index, const fr_t* d_l_scalars, size_t l_count, fr_t* d_w,
                         cudaStream_t stream) {
    const size_t n = m.num_variables();
    witness_ones_kernel<<<msm::blocks_for(n, 256), 256, 0, stream>>>(d_a_ones, m.num_inputs, d_l_ones, m.num_aux,
                                                                     d_w);
    CUZK_LAUNCH_CHECK();
    if (a_count) {
        witness_scatter_kernel<<<msm::blocks_for(a_count, 256), 256, 0, stream>>>(d_a_index, d_a_scalars, a_count,
                                                                                  m.num_inputs, 0, d_w);
        CUZK_LAUNCH_CHECK();
    }
    if (l_count) {
        witness_scatter_kernel<<<msm::blocks_for(l_count, 256), 256, 0, stream>>>(d_l_index, d_l_scalars, l_count,
                                                                                  m.num_aux, m.num_inputs, d_w);
        CUZK_LAUNCH_CHECK();
    }
}

void evaluate_matrices(const matrices_t& m, const fr_t* d_w, fr_t* d_a, fr_t* d_b, fr_t* d_c, cudaStream_t stream) {
    if (m.num_constraints == 0) return;
    fr_t* const outs[3] = {d_a, d_b, d_c};
    if (m.streamed) {
        evaluate_streamed(m, d_w, outs, stream);
        return;
    }
    const device_rows_t* rows[3] = {&m.a, &m.b, &m.c};
    for (int i = 0; i < 3; i++)
        if (outs[i])
            launch_products(rows[i]->row_ends, rows[i]->cols, rows[i]->coeffs, 0, m.coeff_table, d_w,
                            m.num_constraints, outs[i], stream);
}

}  // namespace cuzk::groth16

using namespace cuzk;

extern "C" cuzk_error_t cuzk_groth16_matrices_create(cuzk_gpu_locks_t* locks, int device, size_t num_inputs,
                                                     size_t num_aux, size_t num_constraints,
                                                     const cuzk_sparse_rows_t* a, const cuzk_sparse_rows_t* b,
                                                     const cuzk_sparse_rows_t* c, const cuzk_fr_t* coeff_table,
                                                     size_t coeff_len, cuzk_groth16_matrices_t** out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "matrices: null output");
        *out = nullptr;
        const cuzk_sparse_rows_t* m[3] = {a, b, c};
        *out = groth16::make_matrices(locks, device, num_inputs, num_aux, num_constraints, m,
                                      reinterpret_cast<const fr_t*>(coeff_table), coeff_len, false, 0)
                   .release();
    });
}

extern "C" cuzk_error_t cuzk_groth16_matrices_create_streamed(cuzk_gpu_locks_t* locks, int device, size_t num_inputs,
                                                              size_t num_aux, size_t num_constraints,
                                                              const cuzk_sparse_rows_t* a, const cuzk_sparse_rows_t* b,
                                                              const cuzk_sparse_rows_t* c, const cuzk_fr_t* coeff_table,
                                                              size_t coeff_len, size_t chunk_terms,
                                                              cuzk_groth16_matrices_t** out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "matrices: null output");
        *out = nullptr;
        const cuzk_sparse_rows_t* m[3] = {a, b, c};
        *out = groth16::make_matrices(locks, device, num_inputs, num_aux, num_constraints, m,
                                      reinterpret_cast<const fr_t*>(coeff_table), coeff_len, true, chunk_terms)
                   .release();
    });
}

extern "C" int cuzk_groth16_matrices_streamed(const cuzk_groth16_matrices_t* matrices) {
    return matrices && matrices->streamed ? 1 : 0;
}

extern "C" size_t cuzk_groth16_matrices_bytes(const cuzk_groth16_matrices_t* matrices) {
    return matrices ? matrices->block.bytes() : 0;
}

extern "C" void cuzk_groth16_matrices_destroy(cuzk_groth16_matrices_t* matrices) { delete matrices; }

cuzk_groth16_matrices::~cuzk_groth16_matrices() {
    // device-wide-ok: teardown of streamed matrices, no proof uses them
    for (void* p : pinned) cudaHostUnregister(p);
}
