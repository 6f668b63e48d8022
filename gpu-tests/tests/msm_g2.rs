//! GPU MSM and batch addition over G2 against blst on the CPU (bellperson-lite's `msm_g2`, or
//! plain sums). Sizes 0, 1, 2, 1000, 2^16+3 and 2^20 (at most 2^12 with CUZK_SMALL=1);
//! scalars random, all zero, all one, all maximal (r - 1) and a mix of those; points with
//! the identity and repeated points placed among them. Fresh random inputs each run (seed
//! printed).
#![cfg(feature = "cuda")]

use bellperson_lite::density::Density;
use bellperson_lite::msm::msm_g2 as cpu_msm;
use blstrs::{G2Affine, G2Projective, Scalar};
use cuzk_gpu_tests::points::random_points_g2;
use cuzk_gpu_tests::scalars::{scalars, ScalarKind};
use cuzk_gpu_tests::{rng, small};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::msm::{batch_add_g2, msm_g2};

fn sizes() -> Vec<usize> {
    if small() {
        vec![0, 1, 2, 3, 1000, 4096]
    } else {
        vec![0, 1, 2, 3, 1000, (1 << 16) + 3, 1 << 20]
    }
}

/// Random points with the identity at a few places and some points repeated (so that a
/// bucket sees P twice and must double).
fn test_points(rng: &mut ChaCha20Rng, n: usize) -> Vec<G2Affine> {
    let mut p = random_points_g2(rng, n);
    if n >= 3 {
        p[n / 2] = G2Affine::identity();
        p[n - 1] = p[0];
        for _ in 0..n / 100 {
            let i = (rng.next_u64() as usize) % (n - 1);
            p[i + 1] = p[i];
        }
    }
    p
}

fn naive(points: &[G2Affine], scalars: &[Scalar]) -> G2Projective {
    points
        .iter()
        .zip(scalars)
        .map(|(p, s)| G2Projective::from(p) * s)
        .sum()
}

#[test]
fn g2_msm_matches_blst() {
    let mut rng = rng();
    for n in sizes() {
        let points = test_points(&mut rng, n);
        for kind in ScalarKind::ALL {
            let s = scalars(&mut rng, kind, n);
            let gpu = msm_g2(&points, &s).unwrap();
            let cpu = if n <= 3 {
                naive(&points, &s)
            } else {
                cpu_msm(&points, &s, None).unwrap()
            };
            assert_eq!(gpu, cpu, "G2 MSM of {n} points, {kind:?} scalars");
            eprintln!("G2 MSM n={n} {kind:?}: ok");
        }
    }
}

#[test]
fn g2_msm_edge_cases() {
    let mut rng = rng();
    let p = random_points_g2(&mut rng, 2);
    let (a, b) = (p[0], p[1]);
    let neg_a = (-G2Projective::from(a)).to_affine();
    let s = Scalar::random(&mut rng);
    let t = Scalar::random(&mut rng);
    let cases: Vec<(&str, Vec<G2Affine>, Vec<Scalar>)> = vec![
        ("P + P (doubling in a bucket)", vec![a, a], vec![s, s]),
        ("P - P", vec![a, neg_a], vec![s, s]),
        ("identity point", vec![G2Affine::identity(), b], vec![s, t]),
        ("only the identity", vec![G2Affine::identity()], vec![s]),
        ("P, P, P, Q", vec![a, a, a, b], vec![s, s, s, t]),
        (
            "small scalars",
            vec![a, b, a],
            vec![Scalar::from(3u64), Scalar::from(2u64), Scalar::from(5u64)],
        ),
        ("the generator", vec![G2Affine::generator()], vec![s]),
    ];
    for (what, points, scalars) in cases {
        let gpu = msm_g2(&points, &scalars).unwrap();
        assert_eq!(gpu, naive(&points, &scalars), "{what}");
    }
    assert_eq!(msm_g2(&[a, b], &[s]).unwrap(), G2Projective::from(a) * s);
    assert!(msm_g2(&[a], &[s, t]).is_err());
    assert_eq!(msm_g2(&[], &[]).unwrap(), G2Projective::identity());
}

fn cpu_batch_add(points: &[G2Affine], bitmap: &[u64]) -> G2Projective {
    let mut acc = G2Projective::identity();
    for (i, p) in points.iter().enumerate() {
        if bitmap.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1) {
            acc += p;
        }
    }
    acc
}

#[test]
fn g2_batch_add_matches_blst() {
    let mut rng = rng();
    let sizes: Vec<usize> = if small() {
        vec![0, 1, 63, 64, 65, 1000, 4096]
    } else {
        vec![0, 1, 63, 64, 65, 1000, (1 << 16) + 3, 1 << 18]
    };
    for n in sizes {
        let points = test_points(&mut rng, n);
        let words = n.div_ceil(64);
        let full = Density::full(n).words().to_vec();
        let random: Vec<u64> = (0..words).map(|_| rng.next_u64()).collect();
        let empty = vec![0u64; words];
        let bitmaps: Vec<&[u64]> = vec![&empty, &full, &random];
        let gpu = batch_add_g2(&points, &bitmaps).unwrap();
        assert_eq!(gpu.len(), bitmaps.len());
        for (k, bitmap) in bitmaps.iter().enumerate() {
            assert_eq!(
                gpu[k],
                cpu_batch_add(&points, bitmap),
                "G2 batch add of {n} points, bitmap {k}"
            );
        }
        eprintln!("G2 batch add n={n}: ok");
    }
}
