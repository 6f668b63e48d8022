// Internals shared by the MSM, the batch addition and their benchmark: the stream-ordered
// implementations behind the C entry points (cuzk/msm.h), and the small kernels both use to
// sum arrays of accumulators and to hand results back in blst's Jacobian layout.
//
// Everything is a template over the group G (g1_t or g2_t, see ec/g1.cuh and ec/g2.cuh),
// which names the point types; the definitions are in the .cu files, instantiated there for
// both groups.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ec/g1.cuh"
#include "ec/g2.cuh"
#include "util/error.cuh"
#include "util/resources.cuh"

namespace cuzk::msm {

constexpr uint32_t SCALAR_BITS = 256;  // r < 2^255, plus one bit for the last signed carry
constexpr uint32_t MIN_WINDOW = 4;
constexpr uint32_t MAX_WINDOW = 22;    // sort keys of at most 22 bits (three radix-sort passes)

// The MSM's signed-digit windows for n points: `bits` per window (c), `windows` of them.
struct window_plan_t {
    uint32_t bits;
    uint32_t windows;
};
// The cheapest window for n points by the cost model in msm_g1.cu.
window_plan_t plan_windows(size_t n);
// The windows of c bits each (as many as a 256-bit signed-digit scalar needs).
window_plan_t plan_of_bits(uint32_t c);
// The window and the count of shifted copies of the bases (msm_device's `copies`) for n points
// when at most `max_copies` copies fit: the cheapest by the cost model in msm_g1.cu, with the
// reduction once a set of windows; copies is the fewest that give its count of sets (so no
// memory goes to copies that save nothing). plan_windows is this with max_copies 1.
struct shifted_plan_t {
    uint32_t bits;
    uint32_t copies;
};
shifted_plan_t plan_shifted(size_t n, uint32_t max_copies);

// Events recorded between the MSM's stages, for the benchmark's per-stage timings: digits and
// sorts (begin..sorted), bucket sums (..summed), reduction and combination (..done).
struct msm_profile_t {
    event_t begin, sorted, summed, done;
};

// sum_i scalars[i] * points[i] into *d_out (device), enqueued on `stream`. Scalars are blst
// Montgomery form. Scratch memory is allocated and freed stream-ordered. With `profile`, its
// events are recorded on the stream between the stages. `window_bits` 0 takes the planned
// window (plan_windows); 4 to 22 forces one, for tests and benchmarks.
//
// `tail`: where the last step runs (see last_step_stream). That step, the windows' combination
// by Horner's rule, is a round trip through a CPU core (msm/host_combine.cuh): a copy out, a
// host function, a copy in. Given a tail stream (null: `stream`), it waits there for the
// window sums and `stream` goes on at once with the caller's next kernels; the caller makes
// its stream wait for the tail (wait_for) before it reads *d_out. The memory the last step
// reads is freed on the tail.
// The stream an MSM's last step goes on: `tail`, once it waits for the work enqueued on `stream`
// so far; or `stream` itself when there is no tail.
inline cudaStream_t last_step_stream(cudaStream_t stream, cudaStream_t tail) {
    if (!tail || tail == stream) return stream;
    wait_for(tail, stream);
    return tail;
}

// msm_device (see above) with `copies` > 1: d_points holds copies * n points,
// d_points[j n + i] = 2^(c j) P_i (shift_bases, with c = window_bits, which must then be
// given), and each run of `copies` windows shares one set of buckets: the bucket reduction and
// the combination run once a set instead of once a window, which makes wider windows (fewer
// additions) pay.
template <class G>
void msm_device(const typename G::affine* d_points, const fr_t* d_scalars, size_t n, typename G::jacobian* d_out,
                cudaStream_t stream, msm_profile_t* profile = nullptr, uint32_t window_bits = 0,
                cudaStream_t tail = nullptr, uint32_t copies = 1);

// Makes msm_device's shifted copies: d_points holds room for copies * n points, the first n
// given; d_points[j n + i] = 2^(c j) d_points[i] for 1 <= j < copies (c: the window they serve,
// 4 to 22 bits; copies at most the windows of c).
template <class G>
void shift_bases(typename G::affine* d_points, size_t n, uint32_t c, uint32_t copies, cudaStream_t stream);

// An upper bound of the scratch memory msm_device<G> allocates for n points (for VRAM
// reservations made before the MSM runs), with the window `window_bits` as msm_device's.
template <class G>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits = 0, uint32_t copies = 1);

// An upper bound of the scratch memory batch_add_device<G> allocates for `count` bitmaps over
// n points (its grid, and so its partial sums, grows with n up to a few waves of blocks).
template <class G>
size_t batch_add_scratch_bytes(size_t n, size_t count);

// The sum of s_k * bases[k] over k < len, with the scalars split (see cuzk_msm_split_t):
// bit k of `d_ones` set means s_k = 1; d_scalars[j] is the scalar of point d_index[j] - first
// (every such point below len); all other scalars are zero. Into *d_out (device), enqueued on
// `stream`. `first` lets a chunk of a longer vector keep the vector's indices. `tail` as
// msm_device's: the last additions run there, and *d_out is written in its order.
template <class G>
void split_msm_device(const typename G::affine* d_bases, size_t len, const uint64_t* d_ones, size_t ones_words,
                      const uint32_t* d_index, const fr_t* d_scalars, size_t other_count, typename G::jacobian* d_out,
                      cudaStream_t stream, uint32_t first = 0, cudaStream_t tail = nullptr);

// An upper bound of the scratch memory split_msm_device<G> allocates for `len` bases with
// `other_count` scalars neither zero nor one.
template <class G>
size_t split_msm_scratch_bytes(size_t len, size_t other_count);

// Bases handed out a chunk at a time: source(lo, len) returns the device address of points
// lo .. lo + len of a vector, valid for the work enqueued on the MSM's stream after the call
// and until the next call.
template <class A>
using chunk_source_t = std::function<const A*(size_t lo, size_t len)>;

// msm_device over bases that arrive in chunks of at most `chunk` points (a multiple of 64):
// one MSM per chunk, their sums added up. Scalars, output and `tail` as msm_device's (each
// chunk's combination, and the sum of the chunks, run on the tail).
template <class G>
void chunked_msm_device(const chunk_source_t<typename G::affine>& bases, size_t chunk, const fr_t* d_scalars,
                        size_t n, typename G::jacobian* d_out, cudaStream_t stream, cudaStream_t tail = nullptr);

// An upper bound of the scratch memory chunked_msm_device<G> allocates.
template <class G>
size_t chunked_msm_scratch_bytes(size_t n, size_t chunk);

// split_msm_device over bases that arrive in chunks of at most `chunk` points (a multiple of
// 64). `h_index` is the host copy of d_index (ascending), which says where each chunk's scalars
// begin and end. `tail` as msm_device's.
template <class G>
void chunked_split_msm_device(const chunk_source_t<typename G::affine>& bases, size_t chunk, size_t len,
                              const uint64_t* d_ones, const uint32_t* d_index, const fr_t* d_scalars,
                              const uint32_t* h_index, size_t other_count, typename G::jacobian* d_out,
                              cudaStream_t stream, cudaStream_t tail = nullptr);

// An upper bound of the scratch memory chunked_split_msm_device<G> allocates.
template <class G>
size_t chunked_split_msm_scratch_bytes(size_t len, size_t other_count, size_t chunk);

// For each of `count` bitmaps (stride `wpb` words), the sum of the selected points, into
// d_out[0 .. count) (device), enqueued on `stream`. The last additions run on a CPU core
// (msm/host_combine.cuh's sum_rows_on_host) on `tail` as msm_device's: *d_out is written in
// the order of last_step_stream(stream, tail).
template <class G>
void batch_add_device(const typename G::affine* d_points, size_t n, const uint64_t* d_words, size_t wpb,
                      size_t count, typename G::jacobian* d_out, cudaStream_t stream, cudaStream_t tail = nullptr);

// Sums each of `groups` rows of `len` accumulators down to at most `keep` a row (fewer only
// where a row was shorter to begin with; 1: each row whole), on `stream`, for a caller that
// adds up the rest on the host. Returns the buffer of the `groups` rows (`in` itself when no
// launch was needed, else one of the scratch buffers, which are replaced as needed) and sets
// *kept to their length.
template <class X>
const X* reduce_rows_to(const X* in, size_t groups, size_t len, size_t keep, dev_ptr_t<X>& scratch_a,
                        dev_ptr_t<X>& scratch_b, cudaStream_t stream, size_t* kept);

// Blocks for `n` threads of `threads` each, at least one.
inline unsigned blocks_for(size_t n, unsigned threads) {
    size_t b = (n + threads - 1) / threads;
    return unsigned(b == 0 ? 1 : b);
}

}  // namespace cuzk::msm
