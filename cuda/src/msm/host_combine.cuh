// The end of step 4 and step 5 of the MSM on a CPU core, in stream order: the reduction's rows,
// summed on the GPU down to a few partial sums a window, are copied to pinned host memory, a
// host function on the stream adds those up to the row sums, forms each window's sum from them
// (msm/reduction.cuh's window_sum) and combines the windows (msm/combine.cuh), on the host
// field of ff/host_mont.cuh, and the result is copied to the caller's device pointer, so that
// callers see the same contract as a kernel's: *d_out is written when the stream gets there.
// The batch addition ends the same way (sum_rows_on_host).
//
// Why on the host: both are chains of dependent operations. The combination is c (W - 1)
// doublings: on one GPU thread it took about 2 ms for G1 and 8 ms for G2 at 20-bit windows, in
// Nsight Compute's sum 5.2 of a sha 2^22 proof's 53.5 ms of kernel time (docs/benchmarks.md,
// 2026-12-06); a window's sum is about 25 operations, and its one-warp kernel took 0.37 ms of
// a sha 2^22 proof's 41.3. On a CPU core with 64-bit products they are a fraction of that, and
// the GPU is free for the next MSM.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "msm/combine.cuh"
#include "msm/msm.cuh"
#include "msm/reduction.cuh"

namespace cuzk::msm {

// The most windows a combination takes: 256-bit signed digits in the narrowest window (4 bits).
constexpr uint32_t MAX_COMBINED_WINDOWS = 64;

// The pinned host memory of one combination or batch sum in flight: what the stream copies
// in, what the host function reads and writes, and what the stream copies out. Sized for the
// larger group (G2).
struct alignas(64) combine_slot_t {
    // A combination's windows and their widths (msm/combine.cuh).
    digits::layout_t layout{};
    level_shifts_t levels{};
    // A combination's partial sums a window of each level's row (msm_device's step 4 leaves
    // the last few additions of a row to the host; see level_row_keep).
    uint32_t level_sums[MAX_LEVELS] = {};
    // A batch sum's rows and their length.
    uint32_t row_count = 0, row_len = 0;
    // A combination's (msm_device's q): the last level's elements, one a window; then for each
    // level k, level_sums[k] partial sums of its row a window, window by window, which add up
    // to the row sum Q_k. A batch sum's: row_count rows of row_len accumulators.
    alignas(16) unsigned char rows[MAX_ROW_SUMS * sizeof(g2_xyzz_t)];
    // A combination's one result, or a batch sum's one a row.
    alignas(16) unsigned char result[std::max(g1_t::batch_group * sizeof(jacobian_t),
                                              g2_t::batch_group * sizeof(g2_jacobian_t))];
};
static_assert(g1_t::batch_group * HOST_SUM_ROW * sizeof(xyzz_t) <= sizeof(combine_slot_t::rows) &&
                  g2_t::batch_group * HOST_SUM_ROW * sizeof(g2_xyzz_t) <= sizeof(combine_slot_t::rows),
              "a slot holds a batch addition's rows");

// A process-wide pool of slots. A slot is allocated the first time none is free and reused
// ever after, so that the steady state allocates no pinned memory (an allocation that may
// wait on the driver); the pool holds as many slots as combinations were ever in flight at
// once. Slots are never freed: their memory goes with the process.
class combine_slots_t {
public:
    // A free slot, or a new one; throws cuda_error when pinned memory cannot be allocated.
    combine_slot_t* take();
    // Returns a slot to the pool; called from a host function, so it makes no CUDA call and
    // never allocates (take() reserved the room).
    void give(combine_slot_t* slot) noexcept;

private:
    std::mutex mutex_;
    std::vector<combine_slot_t*> free_;
    size_t allocated_ = 0;
};

combine_slots_t& combine_slots();

// Accumulators of X a slot's rows hold.
template <class X>
constexpr size_t slot_capacity() {
    return sizeof(combine_slot_t::rows) / sizeof(X);
}

static_assert(slot_capacity<xyzz_t>() == 512 && slot_capacity<g2_xyzz_t>() == 256,
              "tests/reduction_emulator checks the reduction for slots of 512 G1 and 256 G2 accumulators");

// msm/reduction.cuh's level_row_keep for a slot of X.
template <class X>
size_t level_row_keep(uint32_t level_count, uint32_t sets) {
    return level_row_keep(level_count, sets, slot_capacity<X>());
}

// Element i of a slot's rows as an X (copied out: the rows are bytes).
template <class X>
X slot_element(const combine_slot_t& slot, size_t i) {
    X e;
    std::memcpy(&e, slot.rows + i * sizeof(X), sizeof(X));
    return e;
}

// The host function of a G combination: reads the slot's partial row sums, writes its result.
template <class G>
void CUDART_CB combine_in_slot(void* data) {
    using X = typename G::host_xyzz;
    auto* slot = static_cast<combine_slot_t*>(data);
    const uint32_t windows = slot->layout.windows;
    const auto load = [slot](size_t i) { return slot_element<X>(*slot, i); };
    X rows[MAX_ROW_SUMS], sums[MAX_COMBINED_WINDOWS];
    const X* top = rows_from_partials(load, slot->levels, slot->level_sums, windows, rows);
    for (uint32_t w = 0; w < windows; w++) sums[w] = window_sum(rows, top, slot->levels, windows, w);
    const typename X::jacobian_t result = combine_windows(sums, slot->layout);
    std::memcpy(slot->result, &result, sizeof(result));
}

// The host function of a G batch sum: each of the slot's rows summed and converted to blst's
// Jacobian layout, into the slot's results.
template <class G>
void CUDART_CB sum_rows_in_slot(void* data) {
    using X = typename G::host_xyzz;
    auto* slot = static_cast<combine_slot_t*>(data);
    for (uint32_t r = 0; r < slot->row_count; r++) {
        X acc = X::inf();
        for (uint32_t i = 0; i < slot->row_len; i++)
            acc = acc.add(slot_element<X>(*slot, size_t(r) * slot->row_len + i));
        const typename X::jacobian_t sum = acc.to_jacobian();
        std::memcpy(slot->result + r * sizeof(sum), &sum, sizeof(sum));
    }
}

void CUDART_CB give_slot_back(void* data);

// Enqueues on `stream` a slot's round trip through a CPU core: `in_bytes` from d_in into its
// rows, host_fn(slot), `out_bytes` of its result to d_out, and the slot back to the pool. The
// caller has taken the slot and filled in its fields. If the first copy cannot be enqueued the
// slot goes back at once; a later failure leaves it out of the pool (the stream may still
// touch it).
void enqueue_slot_round_trip(combine_slot_t* slot, const void* d_in, size_t in_bytes, cudaHostFn_t host_fn,
                             void* d_out, size_t out_bytes, cudaStream_t stream);

// The host and device forms of G's points share one layout (the round trip copies bytes).
template <class G>
constexpr bool host_layout_matches() {
    return sizeof(typename G::host_xyzz) == sizeof(typename G::xyzz) &&
           sizeof(typename G::host_xyzz::jacobian_t) == sizeof(typename G::jacobian);
}

// Enqueues on `stream`: d_out[r] = the sum of row r of d_rows (row_count rows of row_len
// accumulators, at most G::batch_group rows and HOST_SUM_ROW accumulators a row), in blst's
// Jacobian layout, added up on a CPU core. d_rows must stay valid until the stream has copied
// it (free it on `stream`).
template <class G>
void sum_rows_on_host(const typename G::xyzz* d_rows, size_t row_count, size_t row_len, typename G::jacobian* d_out,
                      cudaStream_t stream) {
    static_assert(host_layout_matches<G>(), "the host and device points and results must have one layout");
    CUZK_REQUIRE(row_count >= 1 && row_count <= size_t(G::batch_group) && row_len >= 1 && row_len <= HOST_SUM_ROW,
                 "batch add: " + std::to_string(row_count) + " rows of " + std::to_string(row_len) +
                     " sums for the host, outside 1.." + std::to_string(G::batch_group) + " rows of 1.." +
                     std::to_string(HOST_SUM_ROW));
    combine_slot_t* slot = combine_slots().take();
    slot->row_count = uint32_t(row_count);
    slot->row_len = uint32_t(row_len);
    enqueue_slot_round_trip(slot, d_rows, row_count * row_len * sizeof(typename G::xyzz), sum_rows_in_slot<G>, d_out,
                            row_count * sizeof(typename G::jacobian), stream);
}

// Enqueues on `stream`: *d_out = sum_w 2^(o_w) W_w over `layout`'s windows (msm/combine.cuh),
// in blst's Jacobian layout, with W_w the window sum msm/reduction.cuh's window_sum forms from
// d_rows (laid out as a slot's rows, see combine_slot_t: the last level's elements, then
// level_sums[k] partial sums a window of each level k's row, layout.windows windows). d_rows
// must stay valid until the stream has copied it (free it on `stream`).
template <class G>
void combine_on_host(const typename G::xyzz* d_rows, const level_shifts_t& levels, const uint32_t* level_sums,
                     const digits::layout_t& layout, typename G::jacobian* d_out, cudaStream_t stream) {
    using X = typename G::host_xyzz;
    static_assert(host_layout_matches<G>(), "the host and device points and results must have one layout");
    static_assert(sizeof(typename G::xyzz) <= sizeof(g2_xyzz_t), "a slot holds G2's points");
    const uint32_t num_windows = layout.windows;
    CUZK_REQUIRE(num_windows >= 1 && num_windows <= MAX_COMBINED_WINDOWS,
                 "msm: " + std::to_string(num_windows) + " windows to combine, outside 1.." +
                     std::to_string(MAX_COMBINED_WINDOWS));
    const size_t rows = size_t(levels.count + 1) * num_windows;
    CUZK_REQUIRE(levels.count >= 1 && levels.count <= MAX_LEVELS && rows <= MAX_ROW_SUMS,
                 "msm: " + std::to_string(levels.count) + " reduction levels of " + std::to_string(num_windows) +
                     " windows, more row sums than a combination holds (" + std::to_string(MAX_ROW_SUMS) +
                     ")");
    size_t elements = num_windows;
    for (uint32_t k = 0; k < levels.count; k++) elements += size_t(level_sums[k]) * num_windows;
    CUZK_REQUIRE(elements <= slot_capacity<X>(), "msm: " + std::to_string(elements) +
                                                     " partial row sums, more than a combination holds (" +
                                                     std::to_string(slot_capacity<X>()) + ")");
    combine_slot_t* slot = combine_slots().take();
    slot->layout = layout;
    slot->levels = levels;
    std::copy(level_sums, level_sums + levels.count, slot->level_sums);
    enqueue_slot_round_trip(slot, d_rows, elements * sizeof(typename G::xyzz), combine_in_slot<G>, d_out,
                            sizeof(typename G::jacobian), stream);
}

}  // namespace cuzk::msm
