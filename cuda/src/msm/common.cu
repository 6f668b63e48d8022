// Kernels shared by the MSM and the batch addition: row sums of accumulators (see msm.cuh),
// for G1 and G2; and the pool of pinned slots of their last steps on the host
// (msm/host_combine.cuh).
#include <new>

#include "msm/host_combine.cuh"
#include "msm/msm.cuh"

namespace cuzk::msm {

namespace {

// out[g * gridDim.x + b] = sum of in[g][b * span .. min(len, (b + 1) * span)), for block (b, g):
// each thread sums the span's elements strided by the block (span / TREE_THREADS of them), then
// the block sums those in a tree of pairs in shared memory. Its chain of dependent additions is
// span / TREE_THREADS, then one a halving (log2 TREE_THREADS). Shared memory: TREE_THREADS
// accumulators, 24 KB for G1 and 48 KB (the static limit) for G2.
template <class X>
__global__ void __launch_bounds__(TREE_THREADS) block_sums_kernel(const X* in, size_t len, size_t span, X* out) {
    extern __shared__ __align__(16) unsigned char tree_shared[];
    X* partial = reinterpret_cast<X*>(tree_shared);
    const unsigned t = threadIdx.x;
    const X* row = in + blockIdx.y * len;
    const size_t begin = blockIdx.x * span, end = begin + span < len ? begin + span : len;
    X acc = X::inf();
    for (size_t i = begin + t; i < end; i += TREE_THREADS) acc = acc.add(row[i]);
    partial[t] = acc;
    __syncthreads();
    for (unsigned half = TREE_THREADS / 2; half > 0; half /= 2) {
        if (t < half) partial[t] = partial[t].add(partial[t + half]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.y * size_t(gridDim.x) + blockIdx.x] = partial[0];
}

}  // namespace

template <class X>
const X* reduce_rows_to(const X* in, size_t groups, size_t len, size_t keep, dev_ptr_t<X>& scratch_a,
                        dev_ptr_t<X>& scratch_b, cudaStream_t stream, size_t* kept) {
    // Launches of block_sums_kernel, each summing spans of a row (row_span: why their length)
    // into one element a block, until at most `keep` are left a row.
    static_assert(TREE_THREADS * sizeof(X) <= 48 * 1024, "block_sums_kernel's shared memory needs no opt-in");
    CUZK_REQUIRE(keep >= 1, "reduce_rows_to: keep at least one element a row");
    const X* cur = in;
    if (kept) *kept = len;
    if (groups == 0) return cur;
    CUZK_REQUIRE(groups <= 65535, "reduce_rows_to: more than 65,535 rows");
    bool use_a = true;
    while (len > keep) {
        const size_t span = row_span(groups, len, keep);
        const size_t per_row = (len + span - 1) / span;
        dev_ptr_t<X>& dst = use_a ? scratch_a : scratch_b;
        if (dst.size() < groups * per_row) dst = dev_ptr_t<X>(groups * per_row, stream);
        block_sums_kernel<X><<<dim3(unsigned(per_row), unsigned(groups)), TREE_THREADS, TREE_THREADS * sizeof(X),
                               stream>>>(cur, len, span, dst.get());
        CUZK_LAUNCH_CHECK();
        cur = dst;
        len = per_row;
        use_a = !use_a;
    }
    if (kept) *kept = len;
    return cur;
}

combine_slot_t* combine_slots_t::take() {
    // Slots come SLOTS_AT_ONCE to an allocation, so that a process makes one, past as many
    // combinations in flight at once; give() pushes into the room reserved here. The
    // allocation is made outside the lock, which host functions (give) take.
    constexpr size_t SLOTS_AT_ONCE = 16;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!free_.empty()) {
            combine_slot_t* slot = free_.back();
            free_.pop_back();
            return slot;
        }
    }
    void* p = nullptr;
    // device-wide-ok: once a process in practice (SLOTS_AT_ONCE slots, reused ever after)
    CUZK_CUDA_CHECK(cudaHostAlloc(&p, SLOTS_AT_ONCE * sizeof(combine_slot_t), cudaHostAllocPortable));
    auto* slots = static_cast<combine_slot_t*>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    allocated_ += SLOTS_AT_ONCE;
    free_.reserve(allocated_);
    for (size_t i = 1; i < SLOTS_AT_ONCE; i++) free_.push_back(new (slots + i) combine_slot_t);
    return new (slots) combine_slot_t;
}

void combine_slots_t::give(combine_slot_t* slot) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(slot);
}

combine_slots_t& combine_slots() {
    static combine_slots_t pool;  // process-wide; see combine_slots_t
    return pool;
}

void CUDART_CB give_slot_back(void* data) { combine_slots().give(static_cast<combine_slot_t*>(data)); }

void enqueue_slot_round_trip(combine_slot_t* slot, const void* d_in, size_t in_bytes, cudaHostFn_t host_fn,
                             void* d_out, size_t out_bytes, cudaStream_t stream) {
    const cudaError_t copied = cudaMemcpyAsync(slot->rows, d_in, in_bytes, cudaMemcpyDeviceToHost, stream);
    if (copied != cudaSuccess) combine_slots().give(slot);  // nothing on the stream uses it yet
    CUZK_CUDA_CHECK(copied);
    // From here a failure leaves the slot out of the pool: the stream may still touch it.
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, host_fn, slot));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_out, slot->result, out_bytes, cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_CHECK(cudaLaunchHostFunc(stream, give_slot_back, slot));
}

#define CUZK_INSTANTIATE(X)                                                                                    \
    template const X* reduce_rows_to<X>(const X*, size_t, size_t, size_t, dev_ptr_t<X>&, dev_ptr_t<X>&,          \
                                        cudaStream_t, size_t*);
CUZK_INSTANTIATE(xyzz_t)
CUZK_INSTANTIATE(g2_xyzz_t)
#undef CUZK_INSTANTIATE

}  // namespace cuzk::msm
