//! The device field and G1 arithmetic checked on the CPU, without a GPU or nvcc.
//!
//! `field_emulator/main.cpp` includes `src/ff/bls12_381.cuh` and `src/ff/fp2.cuh` (and so
//! `mont.cuh`) with a host C++ compiler; `ff/ptx.cuh` models the carry-chain instructions in C++
//! there. Every product, square, sum of products, `mul_sub`, addition, subtraction, conversion
//! and inverse of Fp and Fr, and Fp2's products, `mul_sub` and squares, is compared with
//! big-integer arithmetic on edge and seeded random values; G1's XYZZ additions and doublings
//! (`src/ec/xyzz.cuh`) with affine arithmetic, through every branch. Then the host field of the
//! MSM's last step (`src/ff/host_mont.cuh`) bit for bit against the device field, and that step
//! (`src/msm/combine.cuh`) against the reference and the device field. It needs `c++` (or
//! `$CXX`).

mod common;

#[test]
fn field_and_g1_arithmetic_match_big_integers_on_the_cpu() {
    let stdout = common::build_and_run("field_emulator/main.cpp", "field_emulator", &["200"]);
    assert!(
        [
            "Fp: ",
            "Fr: ",
            "Fp2: ",
            "G1: ",
            "host Fp: ",
            "host Fp2: ",
            "host combine_windows and window_sum: "
        ]
        .iter()
        .all(|line| stdout.contains(line)),
        "{stdout}"
    );
}
