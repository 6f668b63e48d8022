//! GPU MSM and batch addition over G1 against the CPU (bellperson-lite's `msm_g1`, or plain
//! sums): the checks of `cuzk_gpu_tests::msm_checks` (sizes up to 2^20, every scalar kind, the
//! identity and repeated points). Fresh random inputs each run (seed printed). The same over
//! G2 is in msm_g2.rs.
#![cfg(feature = "cuda")]

use blstrs::G1Projective;
use cuzk_gpu_tests::msm_checks;

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
