//! The MSM's bucket reduction (step 4) checked on the CPU, without a GPU or nvcc.
//!
//! `reduction_emulator/main.cpp` includes `src/msm/reduction.cuh` with a host C++ compiler and
//! runs its kernels over emulated threads, level by level as `msm_device` does, in the group
//! of integers modulo 2^64: each level's row is left as a few partial sums a window, as
//! `reduce_rows_to`'s launches leave it, and the host's end adds them up (`rows_from_partials`)
//! before `window_sum`. Every window's result must equal the direct sum of (j + 1) B_j, for
//! windows of 4 to 22 bits (8 to 2^21 buckets) and 1 to 13 windows, and every width's partial
//! sums must fit a G1 and a G2 slot. A batch addition's rows must end with at most 128 partial
//! sums and the same sum. It needs `c++` (or `$CXX`).

mod common;

#[test]
fn levels_of_running_sums_give_each_windows_weighted_bucket_sum_on_the_cpu() {
    let stdout = common::build_and_run("reduction_emulator/main.cpp", "reduction_emulator", &["3"]);
    assert!(stdout.contains("reduction: "), "{stdout}");
    assert!(stdout.contains(" 0 failures"), "{stdout}");
}
