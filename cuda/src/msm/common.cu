// Kernels shared by the MSM and the batch addition: row sums of accumulators and the
// conversion of results to blst's Jacobian layout (see msm.cuh).
#include "msm/msm.cuh"

namespace cuzk::msm {

__global__ void reduce_kernel(const xyzz_t* in, size_t groups, size_t len, size_t fan, xyzz_t* out) {
    const size_t out_len = (len + fan - 1) / fan;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= groups * out_len) return;
    const size_t g = t / out_len, o = t % out_len;
    const size_t begin = o * fan;
    const size_t end = begin + fan < len ? begin + fan : len;
    xyzz_t acc = xyzz_t::inf();
    for (size_t i = begin; i < end; i++) acc = acc.add(in[g * len + i]);
    out[t] = acc;
}

__global__ void to_jacobian_kernel(const xyzz_t* in, jacobian_t* out, size_t count) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < count) out[i] = in[i].to_jacobian();
}

const xyzz_t* reduce_rows(const xyzz_t* in, size_t groups, size_t len, dev_ptr_t<xyzz_t>& scratch_a,
                          dev_ptr_t<xyzz_t>& scratch_b, cudaStream_t stream) {
    // Fan-in 32 per level: a few short levels even for hundreds of thousands of partials.
    constexpr size_t FAN = 32;
    const xyzz_t* cur = in;
    bool use_a = true;
    while (len > 1) {
        const size_t out_len = (len + FAN - 1) / FAN;
        dev_ptr_t<xyzz_t>& dst = use_a ? scratch_a : scratch_b;
        if (dst.size() < groups * out_len) dst = dev_ptr_t<xyzz_t>(groups * out_len, stream);
        reduce_kernel<<<blocks_for(groups * out_len, 128), 128, 0, stream>>>(cur, groups, len, FAN, dst);
        CUZK_LAUNCH_CHECK();
        cur = dst;
        len = out_len;
        use_a = !use_a;
    }
    return cur;
}

}  // namespace cuzk::msm
