//! The NTT's passes checked on the CPU, without a GPU or nvcc.
//!
//! `ntt_emulator/main.cpp` includes the kernels' own index and phase code
//! (`src/ntt/layout.cuh`, `src/ntt/rounds.cuh`) and runs it with a host C++ compiler over a
//! small prime field, block by block and thread by thread between barriers: every pass plan
//! to 2^28 (indices, rounds, shared-memory banks) and every transform to 2^20 against a
//! textbook FFT. This test builds and runs it; it needs `c++` (or `$CXX`).

use std::path::Path;
use std::process::Command;

#[test]
fn ntt_passes_match_the_textbook_fft_on_the_cpu() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("tests/ntt_emulator/main.cpp");
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ntt_emulator");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let built = Command::new(&cxx)
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(manifest.join("src"))
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap_or_else(|e| panic!("running {cxx} (a host C++ compiler is needed): {e}"));
    assert!(
        built.status.success(),
        "building the NTT emulator failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&binary)
        .arg("20")
        .output()
        .expect("running the NTT emulator");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "NTT emulator: {}{}",
        stdout,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("rounds, banks ok"), "{stdout}");
    assert!(stdout.contains("transforms: 2^1..2^20 equal"), "{stdout}");
}
