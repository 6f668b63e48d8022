//! The bucket sums' walk through the digits' runs checked on the CPU, without a GPU or nvcc.
//!
//! `run_walk_emulator/main.cpp` includes `src/msm/run_walk.cuh`, the functions `chunk_kernel`
//! and `first_digit_kernel` call, with a host C++ compiler, and walks every chunk of 5,000
//! windows (random digits, one digit for every entry, only zeros, mostly empty runs, long runs
//! among short ones; chunks of 1 to 128 entries; short last chunks). Each entry's weight must
//! reach its own digit's bucket when the run lies inside a chunk, or the partials range that
//! `crossing_kernel` gives a crossing run, each slot written once. It needs `c++` (or `$CXX`).

mod common;

#[test]
fn chunks_close_every_run_into_its_bucket_or_partials_on_the_cpu() {
    let stdout =
        common::build_and_run("run_walk_emulator/main.cpp", "run_walk_emulator", &["1000"]);
    assert!(stdout.contains("run walk: 5000 windows"), "{stdout}");
    assert!(stdout.contains(" 0 failures"), "{stdout}");
}
