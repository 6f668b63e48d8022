//! The device field and G1 arithmetic checked on the CPU, without a GPU or nvcc.
//!
//! `field_emulator/main.cpp` includes `src/ff/bls12_381.cuh` and `src/ff/fp2.cuh` (and so
//! `mont.cuh`) with a host C++ compiler; `ff/ptx.cuh` models the carry-chain instructions in C++
//! there. Every product, square, sum of products, `mul_sub`, addition, subtraction, conversion
//! and inverse of Fp and Fr, and Fp2's products, `mul_sub` and squares, is compared with
//! big-integer arithmetic on edge and seeded random values; G1's XYZZ additions and doublings
//! (`src/ec/xyzz.cuh`) with affine arithmetic, through every branch. It needs `c++` (or
//! `$CXX`).

use std::path::Path;
use std::process::Command;

#[test]
fn field_and_g1_arithmetic_match_big_integers_on_the_cpu() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = manifest.join("tests/field_emulator/main.cpp");
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("field_emulator");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let built = Command::new(&cxx)
        .args([
            "-std=c++17",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            "-I",
        ])
        .arg(manifest.join("src"))
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap_or_else(|e| panic!("running {cxx} (a host C++ compiler is needed): {e}"));
    assert!(
        built.status.success(),
        "building the field emulator failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&binary)
        .arg("200")
        .output()
        .expect("running the field emulator");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "field emulator: {}{}",
        stdout,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        ["Fp: ", "Fr: ", "Fp2: ", "G1: "]
            .iter()
            .all(|line| stdout.contains(line)),
        "{stdout}"
    );
}
