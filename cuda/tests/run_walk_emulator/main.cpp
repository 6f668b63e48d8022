// chunk_kernel's walk through the digits' runs (src/msm/run_walk.cuh) run on the CPU, for
// every chunk of windows of many shapes: random digits, one digit for every entry, only zero
// digits, digits that leave most runs empty, a few long runs among short ones; windows whose
// last chunk is short; chunks of 1 to 128 entries. Each entry carries a random 64-bit weight
// and a segment's sum is the sum of its weights (the points' role), and it checks that
//   - the cursor is on the digit of the sorted key at every entry the walk adds;
//   - a run inside one chunk is closed once into its bucket, with its whole sum;
//   - a run across chunks leaves its sum in the partials [2 ks + 1, 2 ke + 1) of its first and
//     last chunks ks and ke (tails nobody wrote count as zero: infinity), each written once,
//     and no bucket, as finish_crossing_kernel and crossing_kernel expect;
//   - digit 0 closes nothing.
// Arguments: the number of random windows per shape (default 1000).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/cuda_shims.h"
#include "msm/run_walk.cuh"
#include "util/random.cuh"

namespace {

using namespace cuzk::msm;

int failures = 0;
uint64_t checked_entries = 0, checked_windows = 0;

void fail(const char* shape, uint32_t half, uint32_t n, uint32_t chunk, const char* what, uint64_t at) {
    if (++failures > 20) return;
    std::printf("FAIL %s half=%u n=%u chunk=%u: %s (at %llu)\n", shape, half, n, chunk, what,
                static_cast<unsigned long long>(at));
}

// One window: sorted keys (digits 0..half), a weight per entry, chunks of `chunk` entries.
void check_window(const char* shape, const std::vector<uint32_t>& keys, uint32_t half, uint32_t chunk,
                  uint64_t& seed) {
    const uint32_t n = uint32_t(keys.size());
    std::vector<uint32_t> run_end(half + 1, 0);  // as run_end_kernel: the number of keys <= d
    for (uint32_t d = 0, j = 0; d <= half; d++) {
        while (j < n && keys[j] <= d) j++;
        run_end[d] = j;
    }
    std::vector<uint64_t> weight(n);
    for (auto& w : weight) w = cuzk::splitmix64(seed++);
    const auto ends = [&](uint32_t d) {
        if (d > half) fail(shape, half, n, chunk, "run end read past the window", d);
        return run_end[d < half ? d : half];
    };

    const uint32_t chunks = (n + chunk - 1) / chunk;
    std::vector<uint64_t> partial(2 * size_t(chunks), 0), bucket(half + 1, 0);
    std::vector<int> partial_writes(2 * size_t(chunks), 0), bucket_writes(half + 1, 0);
    for (uint32_t t = 0; t < chunks; t++) {
        const uint32_t j0 = t * chunk, j1 = j0 + chunk < n ? j0 + chunk : n;
        walk::cursor_t run = walk::cursor_at(ends, half, walk::digit_at(ends, half, j0));
        uint64_t acc = 0;
        const auto close = [&] {
            if (run.d > half) return fail(shape, half, n, chunk, "cursor past the window's digits", run.d);
            switch (walk::segment_of(run, j0, j1)) {
            case walk::segment_t::none: break;
            case walk::segment_t::head: partial[2 * t] = acc, partial_writes[2 * t]++; break;
            case walk::segment_t::tail: partial[2 * t + 1] = acc, partial_writes[2 * t + 1]++; break;
            case walk::segment_t::bucket: bucket[run.d] = acc, bucket_writes[run.d]++; break;
            }
        };
        for (uint32_t j = j0; j < j1; j++) {
            if (j >= run.end) {
                close();
                acc = 0;
                walk::advance(run, ends, half, j);
            }
            if (run.d != keys[j]) return fail(shape, half, n, chunk, "cursor off the entry's digit", j);
            if (run.d != 0) acc += weight[j];
            checked_entries++;
        }
        close();
    }

    for (uint32_t d = 1; d <= half; d++) {
        const uint32_t s = run_end[d - 1], e = run_end[d];
        uint64_t sum = 0;
        for (uint32_t j = s; j < e; j++) sum += weight[j];
        if (s == e) {
            if (bucket_writes[d] != 0) fail(shape, half, n, chunk, "an empty run was closed", d);
            continue;
        }
        const uint32_t ks = s / chunk, ke = (e - 1) / chunk;
        if (ks == ke) {
            if (bucket_writes[d] != 1 || bucket[d] != sum) fail(shape, half, n, chunk, "bucket not its run's sum", d);
            continue;
        }
        if (bucket_writes[d] != 0) fail(shape, half, n, chunk, "a crossing run wrote its bucket", d);
        uint64_t parts = 0;
        for (size_t k = 2 * size_t(ks) + 1; k < 2 * size_t(ke) + 1; k++) {
            if (partial_writes[k] > 1) fail(shape, half, n, chunk, "a partial written twice", k);
            parts += partial[k];
        }
        if (parts != sum) fail(shape, half, n, chunk, "partials not the crossing run's sum", d);
    }
    if (bucket_writes[0] != 0) fail(shape, half, n, chunk, "digit 0 was closed", 0);
    checked_windows++;
}

// Sorted keys for a shape.
std::vector<uint32_t> keys_for(int shape, uint32_t n, uint32_t half, uint64_t& seed) {
    std::vector<uint32_t> keys(n);
    const uint32_t fixed = uint32_t(cuzk::splitmix64(seed++) % (half + 1));
    for (uint32_t j = 0; j < n; j++) {
        const uint64_t r = cuzk::splitmix64(seed++);
        switch (shape) {
        case 0: keys[j] = uint32_t(r % (half + 1)); break;                   // random digits
        case 1: keys[j] = fixed; break;                                      // one digit for all
        case 2: keys[j] = 0; break;                                          // only zeros
        case 3: keys[j] = uint32_t(r % 3) * (half / 2); break;               // most runs empty
        default: keys[j] = r % 8 == 0 ? uint32_t(r >> 32) % (half + 1) : fixed;  // long and short runs
        }
    }
    std::vector<uint32_t> count(half + 1, 0);  // counting sort, as the radix sort orders them
    for (uint32_t k : keys) count[k]++;
    for (uint32_t d = 0, j = 0; d <= half; d++)
        for (uint32_t c = 0; c < count[d]; c++) keys[j++] = d;
    return keys;
}

}  // namespace

int main(int argc, char** argv) {
    const int per_shape = argc > 1 ? std::atoi(argv[1]) : 1000;
    const char* names[] = {"random", "one-digit", "zeros", "sparse", "long-runs"};
    const uint32_t halves[] = {1, 2, 3, 8, 64, 2048};
    const uint32_t chunks[] = {1, 2, 3, 7, 128};
    uint64_t seed = 0x5eed;
    for (int shape = 0; shape < 5; shape++)
        for (int i = 0; i < per_shape; i++) {
            const uint32_t half = halves[cuzk::splitmix64(seed++) % 6];
            const uint32_t chunk = chunks[cuzk::splitmix64(seed++) % 5];
            const uint32_t n = 1 + uint32_t(cuzk::splitmix64(seed++) % 3000);
            check_window(names[shape], keys_for(shape, n, half, seed), half, chunk, seed);
        }
    std::printf("run walk: %llu windows, %llu entries, %d failures\n", static_cast<unsigned long long>(checked_windows),
                static_cast<unsigned long long>(checked_entries), failures);
    return failures == 0 ? 0 : 1;
}
