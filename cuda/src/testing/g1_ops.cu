// Test entry points for the curve layer: element-wise G1 additions and doublings through the
// XYZZ accumulator over host arrays, results in blst's Jacobian layout, so that GPU tests can
// compare them with blstrs (including the identity, P + P and P - P cases).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuzk/testing.h"
#include "ec/g1.cuh"
#include "ff/redundant.cuh"
#include "testing/raised.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk {
namespace {

__global__ void g1_op_kernel(int op, const jacobian_t* a, const jacobian_t* b, const affine_t* b_aff,
                             jacobian_t* out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    xyzz_t r;
    switch (op) {
        case CUZK_TEST_G1_ADD: r = xyzz_t::from_jacobian(a[i]).add(xyzz_t::from_jacobian(b[i])); break;
        case CUZK_TEST_G1_ADD_AFFINE: r = xyzz_t::from_jacobian(a[i]).add_affine(b_aff[i]); break;
        case CUZK_TEST_G1_DBL: r = xyzz_t::from_jacobian(a[i]).dbl(); break;
        case CUZK_TEST_G1_DBL_AFFINE: r = xyzz_t::dbl_affine(b_aff[i]); break;
        case CUZK_TEST_G1_LAZY_ADD_AFFINE: {
            // As the bucket sums add: the accumulator in the redundant form, the point canonical.
            using redundant_fp = redundant_t<fp_t>;
            xyzz_t acc = xyzz_t::from_jacobian(a[i]);
            if (i & 1) acc = {raised(acc.x), raised(acc.y), raised(acc.zz), raised(acc.zzz)};
            r = acc.as<redundant_fp>().add_affine(b_aff[i].as<redundant_fp>()).as<fp_t>();
            break;
        }
        default: r = xyzz_t::from_jacobian(a[i]); break;
    }
    out[i] = r.to_jacobian();
}

template <class T>
dev_ptr_t<T> upload(const void* host, size_t n, bool needed, cudaStream_t s) {
    if (!needed) return dev_ptr_t<T>();
    CUZK_REQUIRE(host != nullptr, "null pointer for an operand the operation reads");
    dev_ptr_t<T> d(n, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d.get(), host, n * sizeof(T), cudaMemcpyHostToDevice, s));
    return d;
}

void g1_op(int op, const cuzk_g1_projective_t* a, const cuzk_g1_projective_t* b, const cuzk_g1_affine_t* b_aff,
           cuzk_g1_projective_t* out, size_t n) {
    static_assert(sizeof(jacobian_t) == sizeof(cuzk_g1_projective_t), "layout");
    static_assert(sizeof(affine_t) == sizeof(cuzk_g1_affine_t), "layout");
    CUZK_REQUIRE(op >= CUZK_TEST_G1_ADD && op <= CUZK_TEST_G1_LAZY_ADD_AFFINE, "unknown G1 operation");
    if (n == 0) return;
    CUZK_REQUIRE(out != nullptr, "null output");
    bool reads_a = op != CUZK_TEST_G1_DBL_AFFINE;
    bool reads_b = op == CUZK_TEST_G1_ADD;
    bool reads_b_aff =
        op == CUZK_TEST_G1_ADD_AFFINE || op == CUZK_TEST_G1_DBL_AFFINE || op == CUZK_TEST_G1_LAZY_ADD_AFFINE;
    stream_t s;
    dev_ptr_t<jacobian_t> da = upload<jacobian_t>(a, n, reads_a, s);
    dev_ptr_t<jacobian_t> db = upload<jacobian_t>(b, n, reads_b, s);
    dev_ptr_t<affine_t> dba = upload<affine_t>(b_aff, n, reads_b_aff, s);
    dev_ptr_t<jacobian_t> dout(n, s);
    g1_op_kernel<<<unsigned((n + 63) / 64), 64, 0, s>>>(op, da.get(), db.get(), dba.get(), dout.get(), n);
    CUZK_LAUNCH_CHECK();
    CUZK_CUDA_CHECK(cudaMemcpyAsync(out, dout.get(), n * sizeof(jacobian_t), cudaMemcpyDeviceToHost, s));
    s.sync();
}

}  // namespace
}  // namespace cuzk

extern "C" cuzk_error_t cuzk_test_g1_op(int op, const cuzk_g1_projective_t* a, const cuzk_g1_projective_t* b,
                                        const cuzk_g1_affine_t* b_affine, cuzk_g1_projective_t* out, size_t n) {
    return cuzk::guard([&] { cuzk::g1_op(op, a, b, b_affine, out, n); });
}
