//! The MSM's signed-digit decomposition checked on the CPU, without a GPU or nvcc.
//!
//! `digits_emulator/main.cpp` includes `src/msm/digits.cuh`, the functions the digit kernels
//! call, with a host C++ compiler, and checks for every window from 4 to 22 bits, in the
//! uniform and the balanced layout (some windows a bit narrower), on edge and seeded random
//! scalars below r read limb-major as the kernels read them, that the windows cover 256 bits,
//! that their bits tile the scalar, that every digit lies in [-(H_w - 1), H_w] and that the
//! signed digits add up to the scalar. It needs `c++` (or `$CXX`).

mod common;

#[test]
fn signed_digits_add_up_to_the_scalar_on_the_cpu() {
    let stdout = common::build_and_run("digits_emulator/main.cpp", "digits_emulator", &["1000"]);
    assert!(stdout.contains("digits: 1009 scalars"), "{stdout}");
    assert!(stdout.contains("uniform and balanced"), "{stdout}");
}
