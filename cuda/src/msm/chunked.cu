// MSMs whose bases arrive a chunk at a time (see chunk_source_t in msm.cuh): what a proof runs
// when a query vector does not fit in VRAM beside the proof's other buffers. Each chunk is an
// MSM of its own (plain or split), written to one slot of a small array, and the slots are
// added up at the end; the scratch memory is that of one chunk, whatever the vector's length.
#include <algorithm>

#include "msm/msm.cuh"

namespace cuzk::msm {
namespace {

// *out = the sum of parts[0 .. count), one thread (count is the number of chunks: a few dozen).
template <class X>
__global__ void sum_parts_kernel(const typename X::jacobian_t* parts, size_t count, typename X::jacobian_t* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    X acc = X::inf();
    for (size_t i = 0; i < count; i++) acc = acc.add(X::from_jacobian(parts[i]));
    *out = acc.to_jacobian();
}

size_t chunks_of(size_t n, size_t chunk) { return (n + chunk - 1) / chunk; }

void check_chunk(size_t chunk) {
    CUZK_REQUIRE(chunk > 0 && chunk % 64 == 0, "chunked msm: the chunk must be a positive multiple of 64 points");
}

}  // namespace

template <class G>
size_t chunked_msm_scratch_bytes(size_t n, size_t chunk) {
    if (n == 0) return 0;
    return chunks_of(n, chunk) * sizeof(typename G::jacobian) + msm_scratch_bytes<G>(std::min(n, chunk));
}

template <class G>
void chunked_msm_device(const chunk_source_t<typename G::affine>& bases, size_t chunk, const fr_t* d_scalars,
                        size_t n, typename G::jacobian* d_out, cudaStream_t stream, cudaStream_t tail) {
    using jacobian = typename G::jacobian;
    check_chunk(chunk);
    CUZK_REQUIRE(d_out != nullptr, "chunked msm: null output");
    const size_t count = chunks_of(n, chunk);
    if (count == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(jacobian), stream));  // the identity
        return;
    }
    dev_ptr_t<jacobian> parts(count, stream);
    for (size_t k = 0; k < count; k++) {
        const size_t lo = k * chunk, len = std::min(chunk, n - lo);
        msm_device<G>(bases(lo, len), d_scalars + lo, len, parts.get() + k, stream, nullptr, 0, tail);
    }
    // On the tail, where each chunk's last step wrote its slot; the slots are freed there.
    const cudaStream_t last = last_step_stream(stream, tail);
    parts.free_on(last);
    sum_parts_kernel<typename G::xyzz><<<1, 32, 0, last>>>(parts, count, d_out);
    CUZK_LAUNCH_CHECK();
}

template <class G>
size_t chunked_split_msm_scratch_bytes(size_t len, size_t other_count, size_t chunk) {
    if (len == 0) return 0;
    return chunks_of(len, chunk) * sizeof(typename G::jacobian) +
           split_msm_scratch_bytes<G>(std::min(len, chunk), std::min(other_count, std::min(len, chunk)));
}

template <class G>
void chunked_split_msm_device(const chunk_source_t<typename G::affine>& bases, size_t chunk, size_t len,
                              const uint64_t* d_ones, const uint32_t* d_index, const fr_t* d_scalars,
                              const uint32_t* h_index, size_t other_count, typename G::jacobian* d_out,
                              cudaStream_t stream, cudaStream_t tail) {
    using jacobian = typename G::jacobian;
    check_chunk(chunk);
    CUZK_REQUIRE(d_out != nullptr, "chunked split msm: null output");
    CUZK_REQUIRE(other_count == 0 || h_index != nullptr, "chunked split msm: null host index");
    CUZK_REQUIRE(len <= size_t(UINT32_MAX), "chunked split msm: more than 2^32 points");
    const size_t count = chunks_of(len, chunk);
    if (count == 0) {
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(jacobian), stream));
        return;
    }
    dev_ptr_t<jacobian> parts(count, stream);
    size_t j = 0;  // the first scalar of the chunk (indices ascend, so the chunk's are a run)
    for (size_t k = 0; k < count; k++) {
        const size_t lo = k * chunk, hi = std::min(len, lo + chunk);
        const size_t end = size_t(std::lower_bound(h_index + j, h_index + other_count, uint32_t(hi)) - h_index);
        // Chunks start at multiples of 64 points: the ones' bitmap words split with them.
        split_msm_device<G>(bases(lo, hi - lo), hi - lo, d_ones + lo / 64, (hi - lo + 63) / 64, d_index + j,
                            d_scalars + j, end - j, parts.get() + k, stream, uint32_t(lo), tail);
        j = end;
    }
    CUZK_REQUIRE(j == other_count, "chunked split msm: scalar indices past the vector or not ascending");
    const cudaStream_t last = last_step_stream(stream, tail);  // as in chunked_msm_device
    parts.free_on(last);
    sum_parts_kernel<typename G::xyzz><<<1, 32, 0, last>>>(parts, count, d_out);
    CUZK_LAUNCH_CHECK();
}

#define CUZK_INSTANTIATE(G)                                                                                       \
    template size_t chunked_msm_scratch_bytes<G>(size_t, size_t);                                                 \
    template void chunked_msm_device<G>(const chunk_source_t<G::affine>&, size_t, const fr_t*, size_t,            \
                                        G::jacobian*, cudaStream_t, cudaStream_t);                                \
    template size_t chunked_split_msm_scratch_bytes<G>(size_t, size_t, size_t);                                   \
    template void chunked_split_msm_device<G>(const chunk_source_t<G::affine>&, size_t, size_t, const uint64_t*,  \
                                              const uint32_t*, const fr_t*, const uint32_t*, size_t, G::jacobian*, \
                                              cudaStream_t, cudaStream_t);
CUZK_INSTANTIATE(g1_t)
CUZK_INSTANTIATE(g2_t)
#undef CUZK_INSTANTIATE

}  // namespace cuzk::msm
