//! The NTT kernels' passes, run on the host.
//!
//! `ntt_emulator/main.cpp` includes the kernels' own `ntt/layout.cuh` and `ntt/rounds.cuh`
//! and runs their phases block by block and thread by thread over a small prime field with
//! 2^28-th roots of unity. This test compiles it with the host's C++ compiler (`$CXX`, else
//! `c++`; no nvcc, no GPU) and runs it: the passes of every transform from 2^1 to 2^20, in
//! every pass shape ntt.cu can pick, must equal a textbook FFT (forward and reverse families,
//! both roots, the H pipeline's `a*b - c` and scale factors), and every round of every pass up
//! to 2^28 must cover its block once and be free of shared-memory bank conflicts.

use std::path::PathBuf;
use std::process::Command;

/// Up to this size the emulator transforms data (2^20 is three passes in blocks of 2^10, the
/// default shape, as the 2^27 transforms of the 32 GiB proofs are; the other shapes take three
/// from 2^21); the layout checks go to 2^28.
const LARGEST_TRANSFORM_LOG: u32 = 20;

#[test]
fn ntt_passes_on_the_host_equal_a_textbook_fft() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("tests/ntt_emulator/main.cpp");
    let binary = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ntt_emulator");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());

    let built = Command::new(&cxx)
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-I"])
        .arg(manifest.join("src"))
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run the C++ compiler `{cxx}` (set CXX to another): {e}")
        });
    assert!(
        built.status.success(),
        "{cxx} failed on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&built.stderr)
    );

    let ran = Command::new(&binary)
        .arg(LARGEST_TRANSFORM_LOG.to_string())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
    let stdout = String::from_utf8_lossy(&ran.stdout);
    print!("{stdout}");
    assert!(
        ran.status.success(),
        "the emulated NTT failed:\n{stdout}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        stdout.contains("no bank conflicts")
            && stdout.contains(&format!("2^1 .. 2^{LARGEST_TRANSFORM_LOG} equal")),
        "the emulator did not report both checks:\n{stdout}"
    );
}
