// Constraint matrices resident on a device, and the kernels that rebuild a proof's witness
// and evaluate a = A w, b = B w, c = C w from them (see matrices.cuh).
#include <memory>
#include <string>

#include "groth16/matrices.cuh"
#include "msm/msm.cuh"
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
void check_rows(const cuzk_sparse_rows_t& m, const char* name, size_t rows, size_t variables, size_t coeff_len) {
    const std::string what = std::string("matrices: ") + name;
    CUZK_REQUIRE(rows == 0 || m.row_ends != nullptr, what + ": null row ends");
    CUZK_REQUIRE(m.terms == 0 || (m.cols != nullptr && m.coeffs != nullptr), what + ": null terms");
    uint64_t previous = 0;
    for (size_t r = 0; r < rows; r++) {
        CUZK_REQUIRE(m.row_ends[r] >= previous, what + ": row " + std::to_string(r) + " ends before it starts");
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

std::unique_ptr<matrices_t> make_matrices(cuzk_gpu_locks* given, int device, size_t num_inputs, size_t num_aux,
                                          size_t rows, const cuzk_sparse_rows_t* (&m)[3], const fr_t* table,
                                          size_t coeff_len) {
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
    size_t total = round_up(coeff_len * sizeof(fr_t));
    for (int i = 0; i < 3; i++) total += rows_bytes(rows, m[i]->terms);
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
    for (int i = 0; i < 3; i++) check_rows(*m[i], names[i], rows, num_inputs + num_aux, coeff_len);
    stream_t s;
    uint8_t* at = out->block.get();
    if (coeff_len)
        CUZK_CUDA_CHECK(cudaMemcpyAsync(at, table, coeff_len * sizeof(fr_t), cudaMemcpyHostToDevice, s));
    out->coeff_table = reinterpret_cast<const fr_t*>(at);
    at += round_up(coeff_len * sizeof(fr_t));
    at = place(out->a, *m[0], rows, at, s);
    at = place(out->b, *m[1], rows, at, s);
    place(out->c, *m[2], rows, at, s);
    s.sync();
    return out;
}

__device__ __forceinline__ bool bit(const uint64_t* words, size_t k) { return (words[k >> 6] >> (k & 63)) & 1; }

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

// One thread per row. Most terms of a Filecoin circuit have coefficient one or minus one and
// a bit for a value: those cost an addition or nothing, and only the rest a multiplication.
// The coefficients are told apart by value, so the table's order does not matter.
__global__ void product_kernel(device_rows_t m, const fr_t* table, const fr_t* w, size_t rows, fr_t* out) {
    const size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (r >= rows) return;
    const fr_t one = fr_t::one();
    const fr_t minus_one = fr_t::zero() - one;
    const uint64_t end = m.row_ends[r];
    fr_t acc = fr_t::zero();
    for (uint64_t t = r ? m.row_ends[r - 1] : 0; t < end; t++) {
        const fr_t v = w[m.cols[t]];
        if (v.is_zero()) continue;
        const fr_t k = table[m.coeffs[t]];
        if (k == one) acc += v;
        else if (k == minus_one) acc -= v;
        else if (v == one) acc += k;
        else acc += v * k;
    }
    out[r] = acc;
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
    const unsigned blocks = msm::blocks_for(m.num_constraints, 128);
    const device_rows_t* rows[3] = {&m.a, &m.b, &m.c};
    fr_t* outs[3] = {d_a, d_b, d_c};
    for (int i = 0; i < 3; i++) {
        product_kernel<<<blocks, 128, 0, stream>>>(*rows[i], m.coeff_table, d_w, m.num_constraints, outs[i]);
        CUZK_LAUNCH_CHECK();
    }
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
                                      reinterpret_cast<const fr_t*>(coeff_table), coeff_len)
                   .release();
    });
}

extern "C" size_t cuzk_groth16_matrices_bytes(const cuzk_groth16_matrices_t* matrices) {
    return matrices ? matrices->block.bytes() : 0;
}

extern "C" void cuzk_groth16_matrices_destroy(cuzk_groth16_matrices_t* matrices) { delete matrices; }
