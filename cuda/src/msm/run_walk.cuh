// How chunk_kernel (msm/bucket_sums.cuh) walks the digits' runs through its chunk of one
// window's sorted entries: plain functions over the run ends, so that the kernel and a CPU
// test (tests/run_walk_emulated.rs) run the same code.
//
// run_end(d), for the digits d = 0..half of a window, is the number of sorted keys <= d:
// digit d's run of entries is [run_end(d - 1), run_end(d)) (digit 0's begins at 0), the ends
// never decrease, and run_end(half) = n, the entries of the window.
#pragma once

#include <cstdint>

namespace cuzk::msm::walk {

// The digit whose run holds entry j < n: the first d with run_end(d) > j (a binary search of
// log2(half + 1) rounded up dependent reads).
template <class Ends>
__device__ __forceinline__ uint32_t digit_at(const Ends& run_end, uint32_t half, uint32_t j) {
    uint32_t lo = 0, hi = half;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        if (run_end(mid) > j) hi = mid; else lo = mid + 1;
    }
    return lo;
}

// A copy of x that the compiler may not move a later load above, so that the load may write
// the register x came from (a load hoisted above the copy writes another register, and the
// copy back waits for it).
__device__ __forceinline__ uint32_t pinned_copy(uint32_t x) {
#ifdef __CUDA_ARCH__
    uint32_t y;
    asm volatile("mov.u32 %0, %1;" : "=r"(y) : "r"(x));
    return y;
#else
    return x;
#endif
}

// Where the walk stands: the digit whose run holds the current entry, where that run begins
// and ends, and where the next digit's run ends. The next end is read one run ahead, so that
// crossing a boundary does not wait for a read of memory.
struct cursor_t {
    uint32_t d;
    uint32_t start;
    uint32_t end;
    uint32_t next_end;
};

// The cursor on digit d's run.
template <class Ends>
__device__ __forceinline__ cursor_t cursor_at(const Ends& run_end, uint32_t half, uint32_t d) {
    const uint32_t end = run_end(d);
    const uint32_t next_end = run_end(d < half ? d + 1 : half);
    const uint32_t start = d > 0 ? run_end(d - 1) : 0;
    return {d, start, end, next_end};
}

// Moves the cursor on at entry j, the first past its run (j == end: the walk visits every
// entry in turn). Runs with no entries are skipped; they begin and end where the current run
// ended, so that is where the next run with entries begins. As j < n = run_end(half), the
// digit stays below half until the last step. The next end is read at d + 1, or at half once
// d is there (where it equals the current end): one read whatever d is, because a choice
// between a read and another value would make the next boundary wait for the read.
template <class Ends>
__device__ __forceinline__ void advance(cursor_t& c, const Ends& run_end, uint32_t half, uint32_t j) {
    c.start = c.end;
    c.end = pinned_copy(c.next_end);
    c.d++;
    while (c.end <= j) c.end = run_end(++c.d);
    c.next_end = run_end(c.d < half ? c.d + 1 : half);  // unconditional: nothing waits for it
}

// Where the sum of the current run's entries inside the chunk [j0, j1) goes.
enum class segment_t : uint8_t {
    none,    // digit 0: its entries add nothing
    head,    // the run began in an earlier chunk: the chunk's head partial
    tail,    // the run began in this chunk and continues past it: the chunk's tail partial
    bucket,  // the run lies inside this chunk: its bucket, complete
};

__device__ __forceinline__ segment_t segment_of(const cursor_t& c, uint32_t j0, uint32_t j1) {
    if (c.d == 0) return segment_t::none;
    if (c.start < j0) return segment_t::head;
    if (c.end > j1) return segment_t::tail;
    return segment_t::bucket;
}

}  // namespace cuzk::msm::walk
