// MSMs whose scalars were split on the CPU into ones (a bitmap) and the rest (index, scalar
// pairs): the ones by batch addition, the rest by Pippenger over the gathered points.
#include <algorithm>

#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

__global__ void gather_kernel(const affine_t* bases, const uint32_t* index, size_t count, affine_t* out) {
    const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (j < count) out[j] = bases[index[j]];
}

// *out = parts[0] + parts[1].
__global__ void add_pair_kernel(const jacobian_t* parts, jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const xyzz_t sum = xyzz_t::from_jacobian(parts[0]).add(xyzz_t::from_jacobian(parts[1]));
    *out = sum.to_jacobian();
}

}  // namespace

size_t split_msm_scratch_bytes(size_t other_count) {
    return 2 * sizeof(jacobian_t) + other_count * sizeof(affine_t) + msm_scratch_bytes(other_count) +
           batch_add_scratch_bytes(1);
}

void split_msm_g1_device(const affine_t* d_bases, size_t len, const uint64_t* d_ones, size_t ones_words,
                         const uint32_t* d_index, const fr_t* d_scalars, size_t other_count, jacobian_t* d_out,
                         cudaStream_t stream) {
    CUZK_REQUIRE(d_out != nullptr, "split msm: null output");
    CUZK_REQUIRE(other_count <= len, "split msm: more scalars than points");
    dev_ptr_t<jacobian_t> parts(2, stream);
    batch_add_g1_device(d_bases, len, d_ones, ones_words, 1, parts.get(), stream);
    dev_ptr_t<affine_t> gathered(other_count, stream);
    if (other_count) {
        gather_kernel<<<blocks_for(other_count, 256), 256, 0, stream>>>(d_bases, d_index, other_count, gathered);
        CUZK_LAUNCH_CHECK();
    }
    msm_g1_device(gathered, d_scalars, other_count, parts.get() + 1, stream);
    add_pair_kernel<<<1, 32, 0, stream>>>(parts, d_out);
    CUZK_LAUNCH_CHECK();
}

}  // namespace cuzk::msm
