//! The NTT's passes checked on the CPU, without a GPU or nvcc.
//!
//! `ntt_emulator/main.cpp` includes the kernels' own index and phase code
//! (`src/ntt/layout.cuh`, `src/ntt/rounds.cuh`) and runs it with a host C++ compiler over a
//! small prime field, block by block and thread by thread between barriers: every pass plan
//! to 2^28 (indices, rounds, shared-memory banks), every transform to 2^20 against a
//! textbook FFT, and the six-transform H pipeline against the textbook seven-transform form
//! and long division. This test builds and runs it; it needs `c++` (or `$CXX`).

mod common;

#[test]
fn ntt_passes_match_the_textbook_fft_on_the_cpu() {
    let stdout = common::build_and_run("ntt_emulator/main.cpp", "ntt_emulator", &["20"]);
    assert!(stdout.contains("rounds, banks ok"), "{stdout}");
    assert!(stdout.contains("transforms: 2^1..2^20 equal"), "{stdout}");
    assert!(
        stdout.contains("H pipeline: 2^1..2^20 six transforms equal"),
        "{stdout}"
    );
}
