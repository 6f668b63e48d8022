// Step 4 of the MSM, the bucket reduction by levels of running sums (src/msm/reduction.cuh),
// run on the CPU: the kernel itself (running_sums_kernel) over a grid of emulated threads, the
// levels that msm_device makes (reduction_levels), the row sums that reduce_rows gives as plain
// sums, and window_sum (which the host's step 5 runs) over msm_device's rows, the last level's
// sums in the last row. The group is the integers modulo 2^64 under
// addition (infinity 0, doubling 2x), where every bucket value is a random word: each window's
// result must be sum_j (j + 1) B_j exactly, for every window width from 4 to 22 bits (2^(c-1)
// buckets a window) and 1 to 13 windows.
// Arguments: the number of random cases per window width (default 3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/cuda_shims.h"
#include "msm/reduction.cuh"
#include "util/random.cuh"

namespace {

using namespace cuzk::msm;

// An additive group whose sums can be checked exactly: Z / 2^64.
struct word_t {
    uint64_t v;
    static word_t inf() { return {0}; }
    word_t add(const word_t& o) const { return {v + o.v}; }
    word_t dbl() const { return {v << 1}; }
};

int failures = 0;

// `windows` windows of `half` random buckets reduced as msm_device does; returns the number of
// windows whose result differs from the direct weighted sum.
int check(uint32_t half, uint32_t windows, uint64_t& seed) {
    std::vector<word_t> level(size_t(windows) * half);
    for (auto& b : level) b.v = cuzk::splitmix64(seed++);
    std::vector<uint64_t> want(windows, 0);
    for (uint32_t w = 0; w < windows; w++)
        for (uint32_t j = 0; j < half; j++) want[w] += (j + 1) * level[size_t(w) * half + j].v;

    const level_shifts_t levels = reduction_levels(half, windows);
    // As msm_device's q: the levels' row sums, then the last level's sums.
    std::vector<word_t> q(size_t(windows) * (levels.count + 1));
    size_t per = half;
    for (uint32_t k = 0; k < levels.count; k++) {
        const uint32_t len = 1u << levels.log2_len[k];
        const size_t segments = windows * (per / len);
        std::vector<word_t> sums(segments);
        word_t* const sums_at = k + 1 == levels.count ? q.data() + size_t(levels.count) * windows : sums.data();
        cuda_shims::launch(segments, 128, [&] { running_sums_kernel<word_t>(level.data(), len, segments, sums_at); });
        if (k + 1 == levels.count) sums.assign(q.end() - windows, q.end());
        for (uint32_t w = 0; w < windows; w++) {  // reduce_rows: each window's row summed
            word_t row = word_t::inf();
            for (size_t i = 0; i < per; i++) row = row.add(level[w * per + i]);
            q[size_t(k) * windows + w] = row;
        }
        level = sums;
        per /= len;
    }
    if (per != 1 || level.size() != windows) {
        std::printf("FAIL half=%u: the levels end with %zu elements a window\n", half, per);
        return int(windows);
    }
    std::vector<word_t> out(windows);
    for (uint32_t w = 0; w < windows; w++) out[w] = window_sum(q.data(), q.data() + size_t(levels.count) * windows, levels, windows, w);
    int wrong = 0;
    for (uint32_t w = 0; w < windows; w++) {
        if (out[w].v == want[w]) continue;
        if (++wrong == 1)
            std::printf("FAIL half=%u windows=%u levels=%u: window %u is %016llx, not %016llx\n", half, windows,
                        levels.count, w, static_cast<unsigned long long>(out[w].v),
                        static_cast<unsigned long long>(want[w]));
    }
    return wrong;
}

}  // namespace

int main(int argc, char** argv) {
    const int cases = argc > 1 ? std::atoi(argv[1]) : 3;
    uint64_t seed = 2026;
    // The first level's segment keeps 2^15 threads where 8 to 64 elements allow it: H's
    // buckets at sha 2^22 (2^19 in one set) in 16s, 2^21 buckets in 64s, few buckets in 8s.
    const struct {
        uint32_t half, sets, seg;
    } firsts[] = {{1u << 19, 1, 16}, {1u << 15, 16, 16}, {1u << 21, 1, 64}, {1u << 21, 2, 64},
                  {1u << 20, 1, 32}, {1u << 18, 1, 8},   {8, 1, 8},         {1u << 19, 0, 16}};
    for (const auto& f : firsts) {
        if (first_segment(f.half, f.sets) == f.seg) continue;
        std::printf("FAIL first_segment(%u, %u) = %u, not %u\n", f.half, f.sets, first_segment(f.half, f.sets), f.seg);
        failures++;
    }
    // The host's combination holds MAX_ROW_SUMS row sums: enough for every window width and
    // count of sets (windows sharing buckets) an MSM can have.
    uint32_t most_rows = 0;
    for (uint32_t c = 4; c <= 22; c++)
        for (uint32_t sets = 1; sets <= (256 + c - 1) / c; sets++) {
            const uint32_t rows = (reduction_levels(1u << (c - 1), sets).count + 1) * sets;
            if (rows > most_rows) most_rows = rows;
        }
    if (most_rows > MAX_ROW_SUMS) {
        std::printf("FAIL %u row sums, more than MAX_ROW_SUMS (%u)\n", most_rows, MAX_ROW_SUMS);
        failures++;
    }
    int windows_checked = 0, most_levels = 0;
    for (uint32_t c = 4; c <= 22; c++) {
        const uint32_t half = 1u << (c - 1);
        for (int i = 0; i < cases; i++) {
            // Fewer windows for the widest buckets, to keep the test short.
            const uint32_t windows = 1 + uint32_t(cuzk::splitmix64(seed++) % (c <= 16 ? 13 : 2));
            failures += check(half, windows, seed);
            windows_checked += int(windows);
        }
        if (int(reduction_levels(half, 1).count) > most_levels) most_levels = int(reduction_levels(half, 1).count);
    }
    std::printf("reduction: %d windows of 8 to 2^21 buckets, up to %d levels, at most %u row sums, %d failures\n",
                windows_checked, most_levels, most_rows, failures);
    return failures == 0 ? 0 : 1;
}
