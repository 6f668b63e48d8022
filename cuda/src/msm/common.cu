// Kernels shared by the MSM and the batch addition: row sums of accumulators and the
// conversion of results to blst's Jacobian layout (see msm.cuh), for G1 and G2; and the pool
// of pinned slots of the MSM's last step on the host (msm/host_combine.cuh).
#include <new>

#include "msm/host_combine.cuh"
#include "msm/msm.cuh"

namespace cuzk::msm {

namespace {

// out[g][o] = sum of in[g][o*fan .. min(len, (o+1)*fan)) for g < groups, o < ceil(len/fan).
// One thread per output: the arrays summed here are small (partial sums), so a plain
// sequential loop per thread is enough.
template <class X>
__global__ void reduce_kernel(const X* in, size_t groups, size_t len, size_t fan, X* out) {
    const size_t out_len = (len + fan - 1) / fan;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= groups * out_len) return;
    const size_t g = t / out_len, o = t % out_len;
    const size_t begin = o * fan;
    const size_t end = begin + fan < len ? begin + fan : len;
    X acc = X::inf();
    for (size_t i = begin; i < end; i++) acc = acc.add(in[g * len + i]);
    out[t] = acc;
}

// Threads of row_tail_kernel: a row of at most 4 x TAIL_THREADS accumulators, one block.
constexpr unsigned TAIL_THREADS = 128;

// out[g] = sum of in[g][0 .. len) for len <= 4 TAIL_THREADS: block g, each thread summing at
// most four elements strided by the block, then a tree of pairs in shared memory. Its chain
// is at most three additions, then one a halving (log2 TAIL_THREADS of them), in one launch;
// reduce_kernel would take a launch per fourfold step, each a chain of four (about 55 us
// apiece in a warp alone, Nsight Compute, H100, 2026-12-06). Shared memory: TAIL_THREADS
// accumulators, 24 KB for G1 and 48 KB (the static limit) for G2.
template <class X>
__global__ void __launch_bounds__(TAIL_THREADS) row_tail_kernel(const X* in, size_t len, X* out) {
    extern __shared__ __align__(16) unsigned char tail_shared[];
    X* partial = reinterpret_cast<X*>(tail_shared);
    const unsigned t = threadIdx.x;
    const X* row = in + blockIdx.x * len;
    X acc = X::inf();
    for (size_t i = t; i < len; i += TAIL_THREADS) acc = acc.add(row[i]);
    partial[t] = acc;
    __syncthreads();
    for (unsigned half = TAIL_THREADS / 2; half > 0; half /= 2) {
        if (t < half) partial[t] = partial[t].add(partial[t + half]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

template <class X>
__global__ void to_jacobian_kernel(const X* in, typename X::jacobian_t* out, size_t count) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < count) out[i] = in[i].to_jacobian();
}

}  // namespace

template <class X>
void to_jacobian(const X* in, typename X::jacobian_t* out, size_t count, cudaStream_t stream) {
    if (count == 0) return;
    to_jacobian_kernel<<<blocks_for(count, 128), 128, 0, stream>>>(in, out, count);
    CUZK_LAUNCH_CHECK();
}

template <class X>
const X* reduce_rows(const X* in, size_t groups, size_t len, dev_ptr_t<X>& scratch_a, dev_ptr_t<X>& scratch_b,
                     cudaStream_t stream) {
    // Fan-in 32 while a level has at least 2^20 elements: its launch has work for every SM, so
    // few levels and few passes over memory are what count. Below that a launch is a chain of
    // `fan` dependent additions a thread with too few threads to hide it, so fan-in 4 makes
    // more levels of much shorter chains (for G2, 1.4-1.8 ms a launch became 0.1-0.2).
    // The last fourfold steps, from 4 TAIL_THREADS elements a row down, are one launch of
    // row_tail_kernel (a block a row).
    constexpr size_t WIDE_FAN = 32, NARROW_FAN = 4, WIDE_FROM = size_t(1) << 20;
    constexpr size_t TAIL_FROM = 4 * size_t(TAIL_THREADS);
    static_assert(TAIL_THREADS * sizeof(X) <= 48 * 1024, "row_tail_kernel's shared memory needs no opt-in");
    const X* cur = in;
    if (groups == 0) return cur;
    bool use_a = true;
    while (len > 1) {
        if (len <= TAIL_FROM) {
            dev_ptr_t<X>& dst = use_a ? scratch_a : scratch_b;
            if (dst.size() < groups) dst = dev_ptr_t<X>(groups, stream);
            row_tail_kernel<X>
                <<<unsigned(groups), TAIL_THREADS, TAIL_THREADS * sizeof(X), stream>>>(cur, len, dst.get());
            CUZK_LAUNCH_CHECK();
            return dst;
        }
        const size_t fan = groups * len >= WIDE_FROM ? WIDE_FAN : NARROW_FAN;
        const size_t out_len = (len + fan - 1) / fan;
        dev_ptr_t<X>& dst = use_a ? scratch_a : scratch_b;
        if (dst.size() < groups * out_len) dst = dev_ptr_t<X>(groups * out_len, stream);
        reduce_kernel<<<blocks_for(groups * out_len, 128), 128, 0, stream>>>(cur, groups, len, fan, dst.get());
        CUZK_LAUNCH_CHECK();
        cur = dst;
        len = out_len;
        use_a = !use_a;
    }
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

#define CUZK_INSTANTIATE(X)                                                                                    \
    template void to_jacobian<X>(const X*, X::jacobian_t*, size_t, cudaStream_t);                              \
    template const X* reduce_rows<X>(const X*, size_t, size_t, dev_ptr_t<X>&, dev_ptr_t<X>&, cudaStream_t);
CUZK_INSTANTIATE(xyzz_t)
CUZK_INSTANTIATE(g2_xyzz_t)
#undef CUZK_INSTANTIATE

}  // namespace cuzk::msm
