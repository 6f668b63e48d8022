// The kernels of tools/mont-experiment, built twice by build.sh (ACC_FN, ACC2_FN, SQR_FN and
// MUL_FN name each build's entry points) against the field arithmetic of two checkouts.
#include <cuda_runtime.h>
#include "ec/g1.cuh"
#include "ec/g2.cuh"
#include "timing.cuh"
using namespace cuzk;
namespace {
// Thread t adds points idx[t * per ...] into one XYZZ accumulator (the MSM's bucket sums).
template <class A, class X>
__global__ void __launch_bounds__(128) acc_kernel(const A* pts, const unsigned* idx, X* out, int per) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    X acc = X::inf();
    for (int j = 0; j < per; j++) acc = acc.add_affine(pts[idx[size_t(t) * per + j]]);
    out[t] = acc;
}
__global__ void sqr_kernel(fp_t* io, int iters) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    fp_t x = io[t], y = io[t + gridDim.x * blockDim.x];
    for (int i = 0; i < iters; i++) { x = x.sqr(); y = y.sqr(); }
    io[t] = x + y;
}
__global__ void mul_kernel(fp_t* io, int iters) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    fp_t x = io[t], y = io[t + gridDim.x * blockDim.x];
    for (int i = 0; i < iters; i++) { x = x * y; y = y * x; }
    io[t] = x + y;
}
}
extern "C" float ACC_FN(const void* pts, const unsigned* idx, void* out, int threads, int per) {
    return best_of([&] { acc_kernel<<<threads / 128, 128>>>((const affine_t*)pts, idx, (xyzz_t*)out, per); });
}
extern "C" float ACC2_FN(const void* pts, const unsigned* idx, void* out, int threads, int per) {
    return best_of([&] { acc_kernel<<<threads / 128, 128>>>((const g2_affine_t*)pts, idx, (g2_xyzz_t*)out, per); });
}
extern "C" float SQR_FN(void* io, int threads, int iters) {
    return best_of([&] { sqr_kernel<<<threads / 128, 128>>>((fp_t*)io, iters); });
}
extern "C" float MUL_FN(void* io, int threads, int iters) {
    return best_of([&] { mul_kernel<<<threads / 128, 128>>>((fp_t*)io, iters); });
}
