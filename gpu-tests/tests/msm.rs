//! GPU MSM and batch addition over G1 against the CPU (bellperson-lite's `msm_g1`, or plain
//! sums): the checks of `cuzk_gpu_tests::msm_checks` (sizes up to 2^20, every scalar kind, the
//! identity and repeated points), and every window size forced. Fresh random inputs each run
//! (seed printed). The same over G2 is in msm_g2.rs.
#![cfg(feature = "cuda")]

use blstrs::{G1Projective, Scalar};
use cuzk_gpu_tests::msm_checks;
use cuzk_gpu_tests::scalars::{scalars, ScalarKind};
use ff::Field;
use supraseal_c2::testing::{msm_g1_shifted, msm_g1_with_window};

#[test]
fn msm_matches_the_cpu() {
    msm_checks::msm_matches_the_cpu::<G1Projective>();
}

#[test]
fn msm_edge_cases() {
    msm_checks::msm_edge_cases::<G1Projective>();
}

#[test]
fn batch_add_matches_the_cpu() {
    msm_checks::batch_add_matches_the_cpu::<G1Projective>();
}

/// Every window the MSM can take, forced at a small size, against the CPU: the plan picks the
/// wide ones (17 to 22 bits, sorted on three radix passes) only for millions of points, which
/// the other tests never reach. Without shifted copies the windows are balanced (16 of these
/// widths have some windows a bit narrower, `msm/digits.cuh`), so these cover both layouts'
/// digits and combinations, the copies test below the uniform one. With CUZK_SMALL=1 (memcheck) only up to 18 bits: a 22-bit
/// window allocates about 5 GB of buckets whatever the size. Windows outside 4 to 22 bits
/// are refused.
#[test]
fn msm_with_forced_windows_matches_the_cpu() {
    let mut rng = cuzk_gpu_tests::rng();
    let (n, widest) = if cuzk_gpu_tests::small() {
        (1000, 18)
    } else {
        ((1 << 14) + 5, 22)
    };
    let points = cuzk_gpu_tests::points::random_points(&mut rng, n);
    for kind in ScalarKind::ALL {
        let s = scalars(&mut rng, kind, n);
        let cpu = bellperson_lite::msm::msm_g1(&points, &s, None).expect("CPU MSM");
        for c in 4..=widest {
            let gpu = msm_g1_with_window(&points, &s, c).unwrap();
            assert_eq!(
                gpu, cpu,
                "G1 MSM of {n} points, {kind:?} scalars, {c}-bit windows"
            );
        }
        eprintln!("G1 MSM n={n} {kind:?}: windows 4 to {widest} bits ok");
    }
    for c in [0, 3, 23, 32] {
        assert!(
            msm_g1_with_window(&points, &[Scalar::ONE], c).is_err(),
            "{c}-bit windows"
        );
    }
}

/// Shifted copies of the bases (windows sharing sets of buckets) against the CPU: one copy
/// (every window its own set), a last set with fewer windows than copies (its missing windows
/// are zero digits), and every window in one set, at narrow and wide windows. Copies outside 1
/// to the window count are refused.
#[test]
fn msm_over_shifted_bases_matches_the_cpu() {
    let mut rng = cuzk_gpu_tests::rng();
    let n = if cuzk_gpu_tests::small() { 600 } else { 5000 };
    let points = cuzk_gpu_tests::points::random_points(&mut rng, n);
    let shapes: &[(u32, u32)] = if cuzk_gpu_tests::small() {
        &[(4, 1), (4, 3), (4, 64), (8, 5), (13, 20), (16, 16)]
    } else {
        &[
            (4, 1),
            (4, 3),
            (4, 64),
            (8, 5),
            (8, 32),
            (13, 20),
            (16, 16),
            (18, 4),
            (20, 13),
        ]
    };
    for kind in ScalarKind::ALL {
        let s = scalars(&mut rng, kind, n);
        let cpu = bellperson_lite::msm::msm_g1(&points, &s, None).expect("CPU MSM");
        for &(c, copies) in shapes {
            let gpu = msm_g1_shifted(&points, &s, c, copies).unwrap();
            assert_eq!(
                gpu, cpu,
                "G1 MSM of {n} points, {kind:?} scalars, {c}-bit windows, {copies} copies"
            );
        }
        eprintln!("G1 MSM over shifted bases n={n} {kind:?}: {shapes:?} ok");
    }
    for (c, copies) in [(16, 0), (16, 17), (4, 65)] {
        assert!(
            msm_g1_shifted(&points, &[Scalar::ONE], c, copies).is_err(),
            "{c}-bit windows with {copies} copies"
        );
    }
}
