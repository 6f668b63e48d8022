// MSMs whose scalars were split on the CPU into ones (a bitmap) and the rest (index, scalar
// pairs): the ones by batch addition, the rest by Pippenger over the gathered points; for G1
// and G2 (B's G2 sum uses the same split as its G1 sum).
#include <algorithm>

#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

// out[j] = the point of index[j], where `bases` starts at point `first`.
template <class A>
__global__ void gather_kernel(const A* bases, const uint32_t* index, size_t count, uint32_t first, A* out) {
    const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j < count) out[j] = bases[index[j] - first];
}

// *out = parts[0] + parts[1].
template <class X>
__global__ void add_pair_kernel(const typename X::jacobian_t* parts, typename X::jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const X sum = X::from_jacobian(parts[0]).add(X::from_jacobian(parts[1]));
    *out = sum.to_jacobian();
}

}  // namespace

template <class G>
size_t split_msm_scratch_bytes(size_t len, size_t other_count) {
    return 2 * sizeof(typename G::jacobian) + other_count * sizeof(typename G::affine) +
           msm_scratch_bytes<G>(other_count) + batch_add_scratch_bytes<G>(len, 1);
}

template <class G>
void split_msm_device(const typename G::affine* d_bases, size_t len, const uint64_t* d_ones, size_t ones_words,
                      const uint32_t* d_index, const fr_t* d_scalars, size_t other_count, typename G::jacobian* d_out,
                      cudaStream_t stream, uint32_t first, cudaStream_t tail) {
    using affine = typename G::affine;
    using jacobian = typename G::jacobian;
    CUZK_REQUIRE(d_out != nullptr, "split msm: null output");
    CUZK_REQUIRE(other_count <= len, "split msm: more scalars than points");
    dev_ptr_t<jacobian> parts(2, stream);
    batch_add_device<G>(d_bases, len, d_ones, ones_words, 1, parts.get(), stream, tail);
    dev_ptr_t<affine> gathered(other_count, stream);
    if (other_count) {
        gather_kernel<affine><<<blocks_for(other_count, 256), 256, 0, stream>>>(d_bases, d_index, other_count,
                                                                                 first, gathered.get());
        CUZK_LAUNCH_CHECK();
    }
    msm_device<G>(gathered, d_scalars, other_count, parts.get() + 1, stream, nullptr, 0, tail);
    // The batch sum and the MSM's sum came on the tail (with no ones or no other scalars,
    // their identities on `stream`, which the tail has waited for).
    const cudaStream_t last = last_step_stream(stream, tail);
    parts.free_on(last);
    add_pair_kernel<typename G::xyzz><<<1, 32, 0, last>>>(parts.get(), d_out);
    CUZK_LAUNCH_CHECK();
}

template size_t split_msm_scratch_bytes<g1_t>(size_t, size_t);
template size_t split_msm_scratch_bytes<g2_t>(size_t, size_t);
template void split_msm_device<g1_t>(const affine_t*, size_t, const uint64_t*, size_t, const uint32_t*, const fr_t*,
                                     size_t, jacobian_t*, cudaStream_t, uint32_t, cudaStream_t);
template void split_msm_device<g2_t>(const g2_affine_t*, size_t, const uint64_t*, size_t, const uint32_t*,
                                     const fr_t*, size_t, g2_jacobian_t*, cudaStream_t, uint32_t, cudaStream_t);

}  // namespace cuzk::msm
