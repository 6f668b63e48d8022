// Test entry points for the field layer: element-wise Fp and Fr operations and predicates
// over host arrays, so that GPU tests can compare every operation with blstrs on the CPU.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuzk/testing.h"
#include "ff/bls12_381.cuh"
#include "testing/raised.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk {
namespace {

template <class F>
__global__ void field_op_kernel(int op, const F* a, const F* b, F* out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = a[i];
    F y = b ? b[i] : F::zero();
    F r;
    switch (op) {
        case CUZK_TEST_ADD: r = x + y; break;
        case CUZK_TEST_SUB: r = x - y; break;
        case CUZK_TEST_MUL: r = x * y; break;
        case CUZK_TEST_SQR: r = x.sqr(); break;
        case CUZK_TEST_NEG: r = x.neg(); break;
        case CUZK_TEST_DBL: r = x.dbl(); break;
        case CUZK_TEST_TO_CANONICAL: r = x.to_canonical(); break;
        case CUZK_TEST_FROM_CANONICAL: r = x.from_canonical(); break;
        case CUZK_TEST_MUL_SUB: r = F::mul_sub(x, y, y, x + y); break;
        default: r = x.inverse(); break;
    }
    out[i] = r;
}

template <class F>
__global__ void field_cmp_kernel(const F* a, const F* b, uint8_t* eq, uint8_t* is_zero, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = a[i], y = b[i];
    eq[i] = x == y;
    is_zero[i] = x.is_zero();
}

__global__ void fp_lazy_op_kernel(int op, const fp_t* a, const fp_t* b, fp_t* out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const fp_t x = i & 1 ? raised(a[i]) : a[i];
    const fp_t y = b ? (i & 2 ? raised(b[i]) : b[i]) : fp_t::zero();
    fp_t r;
    switch (op) {
        case CUZK_TEST_ADD: r = fp_t::lazy_add(x, y); break;
        case CUZK_TEST_SUB: r = fp_t::lazy_sub(x, y); break;
        case CUZK_TEST_MUL: r = fp_t::lazy_mul(x, y); break;
        case CUZK_TEST_SQR: r = x.lazy_sqr(); break;
        case CUZK_TEST_DBL: r = x.lazy_dbl(); break;
        default: r = fp_t::lazy_mul_sub(x, y, y, fp_t::lazy_add(x, y)); break;
    }
    out[i] = r.lazy_canonical();
}

__global__ void fp_lazy_is_zero_kernel(const fp_t* a, uint8_t* is_zero, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    is_zero[i] = (i & 1 ? raised(a[i]) : a[i]).lazy_is_zero();
}

bool binary(int op) {
    return op == CUZK_TEST_ADD || op == CUZK_TEST_SUB || op == CUZK_TEST_MUL || op == CUZK_TEST_MUL_SUB;
}

// Runs `kernel` (field_op_kernel's signature) over n elements: copies in, launches, copies out.
template <class F, class C>
void run_op_kernel(void (*kernel)(int, const F*, const F*, F*, size_t), int op, const C* a, const C* b, C* out,
                   size_t n) {
    static_assert(sizeof(F) == sizeof(C), "ABI type and field type differ in size");
    if (n == 0) return;
    CUZK_REQUIRE(a && out && (b || !binary(op)), "null pointer");
    stream_t s;
    dev_ptr_t<F> da(n, s), db(b ? n : 0, s), dout(n, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(da.get(), a, n * sizeof(F), cudaMemcpyHostToDevice, s));
    if (b) CUZK_CUDA_CHECK(cudaMemcpyAsync(db.get(), b, n * sizeof(F), cudaMemcpyHostToDevice, s));
    kernel<<<unsigned((n + 127) / 128), 128, 0, s>>>(op, da.get(), b ? db.get() : nullptr, dout.get(), n);
    CUZK_LAUNCH_CHECK();
    CUZK_CUDA_CHECK(cudaMemcpyAsync(out, dout.get(), n * sizeof(F), cudaMemcpyDeviceToHost, s));
    s.sync();
}

template <class F, class C>
void field_op(int op, const C* a, const C* b, C* out, size_t n) {
    CUZK_REQUIRE(op >= CUZK_TEST_ADD && op <= CUZK_TEST_MUL_SUB, "unknown field operation");
    run_op_kernel<F>(field_op_kernel<F>, op, a, b, out, n);
}

template <class F, class C>
void field_cmp(const C* a, const C* b, uint8_t* eq, uint8_t* is_zero, size_t n) {
    if (n == 0) return;
    CUZK_REQUIRE(a && b && eq && is_zero, "null pointer");
    stream_t s;
    dev_ptr_t<F> da(n, s), db(n, s);
    dev_ptr_t<uint8_t> deq(n, s), dz(n, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(da.get(), a, n * sizeof(F), cudaMemcpyHostToDevice, s));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(db.get(), b, n * sizeof(F), cudaMemcpyHostToDevice, s));
    field_cmp_kernel<F><<<unsigned((n + 127) / 128), 128, 0, s>>>(da.get(), db.get(), deq.get(), dz.get(), n);
    CUZK_LAUNCH_CHECK();
    CUZK_CUDA_CHECK(cudaMemcpyAsync(eq, deq.get(), n, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(is_zero, dz.get(), n, cudaMemcpyDeviceToHost, s));
    s.sync();
}

void fp_lazy_op(int op, const cuzk_fp_t* a, const cuzk_fp_t* b, cuzk_fp_t* out, size_t n) {
    CUZK_REQUIRE(op == CUZK_TEST_ADD || op == CUZK_TEST_SUB || op == CUZK_TEST_MUL || op == CUZK_TEST_SQR ||
                     op == CUZK_TEST_DBL || op == CUZK_TEST_MUL_SUB,
                 "no redundant form of this field operation");
    run_op_kernel<fp_t>(fp_lazy_op_kernel, op, a, b, out, n);
}

void fp_lazy_is_zero(const cuzk_fp_t* a, uint8_t* is_zero, size_t n) {
    if (n == 0) return;
    CUZK_REQUIRE(a && is_zero, "null pointer");
    stream_t s;
    dev_ptr_t<fp_t> da(n, s);
    dev_ptr_t<uint8_t> dz(n, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(da.get(), a, n * sizeof(fp_t), cudaMemcpyHostToDevice, s));
    fp_lazy_is_zero_kernel<<<unsigned((n + 127) / 128), 128, 0, s>>>(da.get(), dz.get(), n);
    CUZK_LAUNCH_CHECK();
    CUZK_CUDA_CHECK(cudaMemcpyAsync(is_zero, dz.get(), n, cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace
}  // namespace cuzk

extern "C" cuzk_error_t cuzk_test_fr_op(int op, const cuzk_fr_t* a, const cuzk_fr_t* b, cuzk_fr_t* out, size_t n) {
    return cuzk::guard([&] { cuzk::field_op<cuzk::fr_t>(op, a, b, out, n); });
}

extern "C" cuzk_error_t cuzk_test_fp_op(int op, const cuzk_fp_t* a, const cuzk_fp_t* b, cuzk_fp_t* out, size_t n) {
    return cuzk::guard([&] { cuzk::field_op<cuzk::fp_t>(op, a, b, out, n); });
}

extern "C" cuzk_error_t cuzk_test_fr_cmp(const cuzk_fr_t* a, const cuzk_fr_t* b, uint8_t* eq, uint8_t* is_zero,
                                         size_t n) {
    return cuzk::guard([&] { cuzk::field_cmp<cuzk::fr_t>(a, b, eq, is_zero, n); });
}

extern "C" cuzk_error_t cuzk_test_fp_cmp(const cuzk_fp_t* a, const cuzk_fp_t* b, uint8_t* eq, uint8_t* is_zero,
                                         size_t n) {
    return cuzk::guard([&] { cuzk::field_cmp<cuzk::fp_t>(a, b, eq, is_zero, n); });
}

extern "C" cuzk_error_t cuzk_test_fp_lazy_op(int op, const cuzk_fp_t* a, const cuzk_fp_t* b, cuzk_fp_t* out,
                                             size_t n) {
    return cuzk::guard([&] { cuzk::fp_lazy_op(op, a, b, out, n); });
}

extern "C" cuzk_error_t cuzk_test_fp_lazy_is_zero(const cuzk_fp_t* a, uint8_t* is_zero, size_t n) {
    return cuzk::guard([&] { cuzk::fp_lazy_is_zero(a, is_zero, n); });
}
