// Step 4 of the MSM, the bucket reduction by levels of running sums (src/msm/reduction.cuh),
// run on the CPU: the kernel itself (running_sums_kernel) over a grid of emulated threads, the
// levels that msm_device makes (reduction_levels), each level's row left as a few partial sums
// a window as reduce_rows_to leaves it (row_span's launches, level_row_keep's count, for a
// G1 and a G2 slot), and the host's end (rows_from_partials, then window_sum) over msm_device's
// q. The group is the integers modulo 2^64 under addition (infinity 0, doubling 2x), where
// every bucket value is a random word: each window's result must be sum_j (j + 1) B_j exactly,
// for every window width from 4 to 22 bits (2^(c-1) buckets a window) and 1 to 13 windows.
// Then the batch addition's rows: at most HOST_SUM_ROW partial sums left, their sum kept.
// Arguments: the number of random cases per window width (default 3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
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

// The accumulators host_combine.cuh's slot holds (MAX_ROW_SUMS G2 XYZZ points of 384 bytes,
// which host_combine.cuh asserts): as many G2 ones, twice as many G1 ones (192 bytes).
constexpr size_t SLOT_G2 = MAX_ROW_SUMS, SLOT_G1 = 2 * SLOT_G2;

// reduce_rows_to on one of `groups` rows, as its launches group it: spans of row_span
// elements, each summed into one, until at most `keep` are left. Fails the run where a launch
// does not shorten the row or the row ends longer than `keep`.
std::vector<word_t> reduce_row_to(std::vector<word_t> row, size_t groups, size_t keep) {
    while (row.size() > keep) {
        const size_t span = row_span(groups, row.size(), keep);
        const size_t per_row = (row.size() + span - 1) / span;
        if (span % TREE_THREADS != 0 || per_row >= row.size()) {
            std::printf("FAIL row_span(%zu, %zu, %zu) = %zu\n", groups, row.size(), keep, span);
            failures++;
            return row;
        }
        std::vector<word_t> next(per_row, word_t::inf());
        for (size_t i = 0; i < row.size(); i++) next[i / span] = next[i / span].add(row[i]);
        row = std::move(next);
    }
    return row;
}

// `windows` windows of `half` random buckets reduced as msm_device does for a slot of `slot`
// accumulators (each level's row left as level_row_keep partial sums a window); returns the
// number of windows whose result differs from the direct weighted sum.
int check(uint32_t half, uint32_t windows, size_t slot, uint64_t& seed) {
    std::vector<word_t> level(size_t(windows) * half);
    for (auto& b : level) b.v = cuzk::splitmix64(seed++);
    std::vector<uint64_t> want(windows, 0);
    for (uint32_t w = 0; w < windows; w++)
        for (uint32_t j = 0; j < half; j++) want[w] += (j + 1) * level[size_t(w) * half + j].v;

    const level_shifts_t levels = reduction_levels(half, windows);
    const size_t keep = level_row_keep(levels.count, windows, slot);
    // As msm_device's q: the last level's sums, then each level's row as partial sums.
    std::vector<word_t> top(windows), partials;
    uint32_t level_sums[MAX_LEVELS] = {};
    size_t per = half;
    for (uint32_t k = 0; k < levels.count; k++) {
        const uint32_t len = 1u << levels.log2_len[k];
        const size_t segments = windows * (per / len);
        std::vector<word_t> sums(segments);
        word_t* const sums_at = k + 1 == levels.count ? top.data() : sums.data();
        cuda_shims::launch(segments, 128, [&] { running_sums_kernel<word_t>(level.data(), len, segments, sums_at); });
        if (k + 1 == levels.count) sums = top;
        for (uint32_t w = 0; w < windows; w++) {  // reduce_rows_to: each window's row
            const std::vector<word_t> row(level.begin() + w * per, level.begin() + (w + 1) * per);
            const std::vector<word_t> kept = reduce_row_to(row, windows, keep);
            if (w == 0) level_sums[k] = uint32_t(kept.size());
            if (kept.size() != level_sums[k]) {
                std::printf("FAIL half=%u: windows of one level kept %zu and %u sums\n", half, kept.size(),
                            level_sums[k]);
                return int(windows);
            }
            partials.insert(partials.end(), kept.begin(), kept.end());
        }
        level = sums;
        per /= len;
    }
    std::vector<word_t> q = top;
    q.insert(q.end(), partials.begin(), partials.end());
    if (q.size() > slot) {  // combine_on_host refuses these
        std::printf("FAIL half=%u windows=%u: %zu partial row sums for a slot of %zu\n", half, windows, q.size(),
                    slot);
        return int(windows);
    }
    std::vector<word_t> rows(size_t(levels.count + 1) * windows);
    const word_t* const top_row =
        rows_from_partials([&](size_t i) { return q.at(i); }, levels, level_sums, windows, rows.data());
    if (per != 1 || level.size() != windows) {
        std::printf("FAIL half=%u: the levels end with %zu elements a window\n", half, per);
        return int(windows);
    }
    std::vector<word_t> out(windows);
    for (uint32_t w = 0; w < windows; w++) out[w] = window_sum(rows.data(), top_row, levels, windows, w);
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
    // Every width and count of sets leaves partial row sums that fit a slot of either group.
    for (size_t slot : {SLOT_G1, SLOT_G2})
        for (uint32_t c = 4; c <= 22; c++)
            for (uint32_t sets = 1; sets <= (256 + c - 1) / c; sets++) {
                const level_shifts_t levels = reduction_levels(1u << (c - 1), sets);
                const size_t keep = level_row_keep(levels.count, sets, slot);
                if (keep != 1 && (keep < 16 || keep > 64 || sets * (1 + levels.count * keep) > slot)) {
                    std::printf("FAIL level_row_keep: %zu a row for %u sets of %u levels, slot of %zu\n", keep, sets,
                                levels.count, slot);
                    failures++;
                }
            }
    // A batch addition's rows (a lane's partial sum each: 128 to 8 waves of 264 blocks of 128)
    // left to the host as at most HOST_SUM_ROW partial sums, with their sum kept.
    int rows_checked = 0;
    for (size_t groups : {size_t(1), size_t(4)})
        for (size_t len : {size_t(1), size_t(128), size_t(129), size_t(132 * 128), size_t(264 * 128),
                           size_t(8 * 264 * 128), size_t(1000 * 128 + 64)}) {
            std::vector<word_t> row(len);
            uint64_t want = 0;
            for (auto& e : row) want += (e.v = cuzk::splitmix64(seed++));
            const std::vector<word_t> kept = reduce_row_to(row, groups, HOST_SUM_ROW);
            uint64_t got = 0;
            for (const word_t& e : kept) got += e.v;
            if (kept.size() > HOST_SUM_ROW || got != want) {
                std::printf("FAIL a row of %zu (%zu rows) left %zu partial sums, sum %s\n", len, groups, kept.size(),
                            got == want ? "kept" : "wrong");
                failures++;
            }
            rows_checked++;
        }
    int windows_checked = 0, most_levels = 0;
    for (uint32_t c = 4; c <= 22; c++) {
        const uint32_t half = 1u << (c - 1);
        for (int i = 0; i < cases; i++) {
            // Fewer windows for the widest buckets, to keep the test short.
            const uint32_t windows = 1 + uint32_t(cuzk::splitmix64(seed++) % (c <= 16 ? 13 : 2));
            failures += check(half, windows, i % 2 ? SLOT_G2 : SLOT_G1, seed);
            windows_checked += int(windows);
        }
        if (int(reduction_levels(half, 1).count) > most_levels) most_levels = int(reduction_levels(half, 1).count);
    }
    std::printf("reduction: %d windows of 8 to 2^21 buckets, up to %d levels, at most %u row sums; %d batch rows; "
                "%d failures\n",
                windows_checked, most_levels, most_rows, rows_checked, failures);
    return failures == 0 ? 0 : 1;
}
