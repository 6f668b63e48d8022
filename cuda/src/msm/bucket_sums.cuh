// Steps 2 and 3 of the Pippenger MSM (pippenger.cuh): the bucket sums of chunks of sorted
// points, and the sums of the partials that buckets crossing chunk boundaries leave.
// Templates over the group, included by pippenger.cuh only.
#pragma once

#include <cuda_pipeline.h>

#include <cstdint>
#include <type_traits>

#include "ff/redundant.cuh"
#include "msm/msm.cuh"
#include "msm/run_walk.cuh"

namespace cuzk::msm {

// The sign of a negative digit, in bit 31 of a sorted value beside the point's index.
constexpr uint32_t SIGN_BIT = 0x80000000u;

namespace {

constexpr uint32_t CHUNK = 128;  // sorted points one thread adds (step 2)
constexpr uint32_t PIECE = 64;   // most partial sums one thread adds (step 3)

// Bucket t (0 <= t < windows * half) is digit t % half + 1 of window t / half; its run in the
// window's sorted values is [run_end[slot - 1], run_end[slot]) with slot = slot_of(t, half)
// (slot 0 of every window holds the zero digits, which contribute nothing and get no bucket).
__device__ __forceinline__ size_t slot_of(size_t t, uint32_t half) {
    return (t / half) * (half + 1) + t % half + 1;
}

// The bucket whose first piece (or group) is the last one at or below p, among buckets
// 0..total (buckets with none share their successor's offset and are skipped).
__device__ __forceinline__ size_t owner_of(const uint32_t* offset, size_t total, size_t p) {
    size_t lo = 0, hi = total;  // first index with offset > p lies in (lo, hi]
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (offset[mid] <= p) lo = mid; else hi = mid;
    }
    return lo;
}

// *p through the read-only path, as an instruction the compiler may neither repeat nor move:
// a value loaded ahead of its use stays in its register until then, where a plain load
// could be issued again at the use (to spare the register) and wait there.
__device__ __forceinline__ uint32_t load_ahead(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

// chunk_kernel's threads per block.
constexpr uint32_t CHUNK_THREADS = 128;
// The mark of a chunk in which no crossing bucket begins (see crossing_kernel; bucket indices
// stay below 2^27: at most 64 windows of 2^21 buckets).
constexpr uint32_t NO_BUCKET = 0xffffffffu;

// Starts the copy of *src into *dst (shared memory) in 16-byte pieces, without registers,
// as one pipeline stage (__pipeline_wait_prior waits for it).
template <class A>
__device__ __forceinline__ void stage_point(A* dst, const A* src) {
    static_assert(sizeof(A) % 16 == 0 && alignof(A) >= 16, "points are copied in 16-byte pieces");
#pragma unroll
    for (size_t k = 0; k < sizeof(A); k += 16)
        __pipeline_memcpy_async(reinterpret_cast<char*>(dst) + k, reinterpret_cast<const char*>(src) + k, 16);
    __pipeline_commit();
}

// Thread t sums chunk t: entries [j0, j1) of window w's sorted values, j0 = (t % per_window) *
// CHUNK. It walks the digits' runs as it goes (msm/run_walk.cuh, which a CPU test runs too),
// from the digit first_digit_kernel found for j0, with the next value and the next run's end
// loaded ahead (a load whose result is needed at once stalls its warp, and with two warps a
// scheduler little else can issue meanwhile); each run's part inside the chunk (a segment)
// goes to the bucket itself when the run lies inside the chunk, to partials[2t] (the head)
// when the run began before the chunk, and to partials[2t + 1] (the tail) when it began inside
// the chunk and continues after it; a tail nobody wrote is set to infinity, so that a crossing
// bucket's partials form the range [2 ks + 1, 2 ke + 1) of its first and last chunks ks, ke.
template <class G>
__global__ void __launch_bounds__(CHUNK_THREADS) chunk_kernel(const typename G::affine* __restrict__ points,
                                                    const uint32_t* __restrict__ sorted_vals, size_t n,
                                                    const uint32_t* __restrict__ run_end,
                                                    const uint32_t* __restrict__ first_digit, uint32_t half,
                                                    size_t per_window, size_t total_chunks,
                                                    typename G::xyzz* buckets, typename G::xyzz* partials) {
    using xyzz_t = typename G::xyzz;
    using affine_t = typename G::affine;
    // A G2 addition is about 12,000 instructions, more than the SM's instruction caches hold:
    // warps at different places of it each fetch it from L2 (30% of G2's stall samples were
    // "no instruction", Nsight Compute, 2026-12-04). So G2's warps of a block step through
    // the points in lockstep (a barrier an addition), where one fetch serves the block; every
    // thread, a chunk's or not, takes CHUNK steps (G2 MSM 2^24 2.5-4% faster, H100).
    constexpr bool g2_points = sizeof(affine_t) > sizeof(g1_t::affine);
    constexpr bool lockstep = g2_points;
    // G1's sums stay in Fp's redundant form (ff/redundant.cuh) inside a run: the products skip
    // their last subtraction, which lies on the path from each addition to the next (bucket
    // sums 2-3% faster, msmexp on an H100, 2026-12-07 and -08). Fp2 has no such form.
    constexpr bool redundant = !g2_points;
    using field_t = decltype(affine_t::x);
    using acc_t = std::conditional_t<redundant, ec_xyzz_t<redundant_t<field_t>>, xyzz_t>;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const bool active = t < total_chunks;
    if (!lockstep && !active) return;
    const size_t w = active ? t / per_window : 0;
    const uint32_t j0 = active ? uint32_t((t - w * per_window) * CHUNK) : 0;
    const uint32_t j1 = active ? uint32_t(min(size_t(j0) + CHUNK, n)) : 0;
    const uint32_t* ends = run_end + w * (half + 1);
    const uint32_t* vals = sorted_vals + w * n;
    xyzz_t* window_buckets = buckets + w * half;
    // The zero digits sort first in their window and add nothing: a chunk of zero digits alone
    // leaves only its empty tail, and its points are not loaded (small scalars, such as a
    // circuit's 32-bit words, have every window above their top bits all zero). G2's warps,
    // in lockstep, walk such a chunk as the others do.
    if constexpr (!lockstep) {
        if (j1 <= ends[0]) {
            partials[2 * t + 1] = xyzz_t::inf();
            return;
        }
    }

    const auto run_end_of = [&](uint32_t d) { return load_ahead(ends + d); };
    walk::cursor_t run = walk::cursor_at(run_end_of, half, first_digit[active ? t : 0]);
    bool tail_written = false;
    // Ends the current digit's segment (non-empty: the walk only enters a digit at one of its
    // entries).
    auto close = [&](const acc_t& sum) {
        xyzz_t acc;
        if constexpr (redundant) {
            acc = sum.template as<field_t>();
        } else {
            acc = sum;
        }
        switch (walk::segment_of(run, j0, j1)) {
        case walk::segment_t::none: break;
        case walk::segment_t::head: partials[2 * t] = acc; break;
        case walk::segment_t::tail:
            partials[2 * t + 1] = acc;
            tail_written = true;
            break;
        case walk::segment_t::bucket: window_buckets[run.d - 1] = acc; break;
        }
    };
    // The points are scattered over the whole vector (an HBM read each): the next one is
    // loaded before the current addition, so that its latency hides behind the arithmetic.
    // A G1 point waits in registers. A G2 point (192 bytes) would hold 48 more registers
    // across the addition, which already spills there, so it is copied asynchronously into
    // one of two shared slots of the thread instead (read one, fill the other).
    constexpr bool staged = g2_points;
    acc_t acc = acc_t::inf();
    uint32_t v = active ? vals[j0] : 0;
    // The value after v, loaded one addition before its point is: the point's address waits
    // for it.
    uint32_t v_ahead = j0 + 1 < j1 ? load_ahead(vals + j0 + 1) : 0;
    affine_t next;
    affine_t* slots = nullptr;
    if constexpr (staged) {
        __shared__ affine_t staging[2 * CHUNK_THREADS];
        slots = staging + 2 * threadIdx.x;
        if (active) stage_point(slots, points + (v & ~SIGN_BIT));
    } else {
        next = points[v & ~SIGN_BIT];
    }
    // G1's warps walk their chunks freely: an addition of about 4,400 instructions fits the
    // caches, and in lockstep G1 was slower (docs/benchmarks.md, 2026-12-07).
    for (uint32_t j = j0; lockstep ? j < j0 + CHUNK : j < j1; j++) {
        if constexpr (lockstep) {
            __syncthreads();
            if (j >= j1) continue;
        }
        const uint32_t cur_v = v;
        affine_t q;
        if constexpr (staged) {
            // The copy into this slot was the last one issued: wait for it. The other slot's
            // values were last read into registers one addition ago, which used them, so
            // refilling it cannot overtake that read.
            __pipeline_wait_prior(0);
            q = slots[(j - j0) & 1];
            if (j + 1 < j1) {
                v = v_ahead;
                stage_point(slots + ((j - j0 + 1) & 1), points + (v & ~SIGN_BIT));
            }
        } else {
            q = next;
            if (j + 1 < j1) {
                v = v_ahead;
                next = points[v & ~SIGN_BIT];
            }
        }
        if (j + 2 < j1) v_ahead = load_ahead(vals + j + 2);
        if (j >= run.end) {
            close(acc);
            acc = acc_t::inf();
            walk::advance(run, run_end_of, half, j);
        }
        if (run.d != 0) {
            if (cur_v & SIGN_BIT) q.y = q.y.neg();  // -(x, y) = (x, -y); infinity (0, 0) stays put
            if constexpr (redundant) {
                acc = acc.add_affine(q.template as<redundant_t<field_t>>());
            } else {
                acc = acc.add_affine(q);
            }
        }
    }
    if (!active) return;
    close(acc);
    if (!tail_written) partials[2 * t + 1] = xyzz_t::inf();
}

// first_digit[t] = the digit whose run holds chunk t's first entry j0: the first d with
// run_end[d] > j0 in its window (run_end[half] = n > j0). A binary search of c - 1 dependent
// loads per chunk, done here by many light threads rather than at the start of chunk_kernel,
// whose few heavy warps would wait for them (about 0.3% of its stall samples at 2^24, ncu on
// the H200, 2026-12-05).
__global__ void first_digit_kernel(const uint32_t* run_end, uint32_t half, size_t per_window, size_t total_chunks,
                                   uint32_t* first_digit) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total_chunks) return;
    const size_t w = t / per_window;
    const uint32_t j0 = uint32_t((t - w * per_window) * CHUNK);
    const uint32_t* ends = run_end + w * (half + 1);
    first_digit[t] = walk::digit_at([&](uint32_t d) { return ends[d]; }, half, j0);
}

// The partials of every bucket whose run crosses a chunk boundary: count[t] of them from
// partials[offset[t]] (see chunk_kernel); 0 for the others, which chunk_kernel completed or
// which are empty. Empty buckets (no chunk writes them) are set to infinity here. A crossing
// bucket is also recorded in first_crossing at the chunk where it begins (at most one bucket
// begins in a chunk and continues past it; the other entries stay NO_BUCKET).
template <class X>
__global__ void crossing_kernel(const uint32_t* run_end, uint32_t half, size_t per_window, size_t total,
                                uint32_t* count, uint32_t* offset, X* buckets, uint32_t* first_crossing) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    const size_t slot = slot_of(t, half), w = t / half;
    const uint32_t s = run_end[slot - 1], e = run_end[slot];
    if (s == e) buckets[t] = X::inf();
    const uint32_t ks = s / CHUNK, ke = e > s ? (e - 1) / CHUNK : ks;
    count[t] = 2 * (ke - ks);
    offset[t] = uint32_t(2 * (w * per_window + ks) + 1);
    if (ke > ks) first_crossing[w * per_window + ks] = uint32_t(t);
}

// p[0] + ... + p[count - 1], count >= 1.
template <class X>
__device__ __forceinline__ X sum_of(const X* p, uint32_t count) {
    X acc = p[0];
    for (uint32_t k = 1; k < count; k++) acc = acc.add(p[k]);
    return acc;
}

// Groups of at most PIECE partials for the buckets with more than PIECE: count[t] partials
// make ceil(count[t] / PIECE); the others have none (finish_crossing_kernel completed them).
__global__ void group_count_kernel(const uint32_t* count, size_t total, uint32_t* groups) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    groups[t] = count[t] > PIECE ? (count[t] + PIECE - 1) / PIECE : 0;
}

// Thread g sums group g: pieces offset[t] + k*PIECE ... of its bucket t, at most PIECE of
// them. Threads past the total number of groups (the launch is an upper bound) exit.
template <class X>
__global__ void __launch_bounds__(128) regroup_kernel(const X* pieces, const uint32_t* count, const uint32_t* offset,
                                                      const uint32_t* group_count, const uint32_t* group_offset,
                                                      size_t total_buckets, X* groups) {
    const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const size_t total_groups = size_t(group_offset[total_buckets - 1]) + group_count[total_buckets - 1];
    if (g >= total_groups) return;
    const size_t t = owner_of(group_offset, total_buckets, g);
    const uint32_t first = uint32_t(g - group_offset[t]) * PIECE;
    const uint32_t last = min(count[t], first + PIECE);
    groups[g] = sum_of(pieces + offset[t] + first, last - first);  // first < last: no empty group
}

// first_crossing's entries that name a bucket.
struct names_bucket_t {
    __device__ __forceinline__ bool operator()(uint32_t b) const { return b != NO_BUCKET; }
};

// Completes the crossing buckets with at most PIECE partials: thread i sums those of bucket
// crossing[i], for i below *listed (crossing_kernel's first_crossing with the empty entries
// taken out, so the buckets are in order and a warp's threads all have one). A thread per
// bucket left most threads idle (at 2^24 points a quarter of the buckets cross: 4.4 ms, as long
// as the running sums of every bucket), and a thread per chunk those of the top window, whose
// few buckets span many chunks (12.9 ms at 2^26, against 8.3 a thread per bucket).
template <class X>
__global__ void __launch_bounds__(128) finish_crossing_kernel(const X* pieces, const uint32_t* count,
                                                              const uint32_t* offset, const uint32_t* crossing,
                                                              const uint32_t* listed, X* buckets) {
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= *listed) return;
    const uint32_t b = crossing[i];
    if (count[b] <= PIECE) buckets[b] = sum_of(pieces + offset[b], count[b]);
}

// After a round of groups: completes the buckets with at most PIECE groups left (count[t] of
// them at offset[t]); the next round gives them no group.
template <class X>
__global__ void __launch_bounds__(128) finish_kernel(const X* pieces, const uint32_t* count, const uint32_t* offset,
                                                     size_t total, X* buckets) {
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= total) return;
    if (count[t] > 0 && count[t] <= PIECE) buckets[t] = sum_of(pieces + offset[t], count[t]);
}

}  // namespace
}  // namespace cuzk::msm
