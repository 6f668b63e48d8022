//! GPU MSM and batch addition over G2 against blst on the CPU: the checks of
//! `cuzk_gpu_tests::msm_checks` (sizes up to 2^20, every scalar kind, the identity and repeated
//! points). Fresh random inputs each run (seed printed).
#![cfg(feature = "cuda")]

use blstrs::G2Projective;
use cuzk_gpu_tests::msm_checks;

#[test]
fn g2_msm_matches_blst() {
    msm_checks::msm_matches_the_cpu::<G2Projective>();
}

#[test]
fn g2_msm_edge_cases() {
    msm_checks::msm_edge_cases::<G2Projective>();
}

#[test]
fn g2_batch_add_matches_blst() {
    msm_checks::batch_add_matches_the_cpu::<G2Projective>();
}
