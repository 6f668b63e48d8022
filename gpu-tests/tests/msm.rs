//! GPU MSM and batch addition against the CPU (bellperson-lite's `msm_g1`, or plain sums).
//! Sizes 0, 1, 2, 1000, 2^16+3 and 2^20 (at most 2^12 with CUZK_SMALL=1); scalars random,
//! all zero, all one, all maximal (r - 1) and a mix of those; points with the identity and
//! repeated points placed among them. Fresh random inputs each run (seed printed). The same
//! over G2 is in msm_g2.rs.
#![cfg(feature = "cuda")]

use bellperson_lite::density::Density;
use bellperson_lite::msm::msm_g1 as cpu_msm;
use blstrs::{G1Affine, G1Projective, Scalar};
use cuzk_gpu_tests::points::random_points;
use cuzk_gpu_tests::scalars::{scalars, ScalarKind};
use cuzk_gpu_tests::{rng, small};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::msm::{batch_add_g1, msm_g1};

fn sizes() -> Vec<usize> {
    if small() {
        vec![0, 1, 2, 3, 1000, 4096]
    } else {
        vec![0, 1, 2, 3, 1000, (1 << 16) + 3, 1 << 20]
    }
}

/// Random points with the identity at a few places and some points repeated (so that a
/// bucket sees P twice and must double).
fn test_points(rng: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    let mut p = random_points(rng, n);
    if n >= 3 {
        p[n / 2] = G1Affine::identity();
        p[n - 1] = p[0];
        for _ in 0..n / 100 {
            let i = (rng.next_u64() as usize) % (n - 1);
            p[i + 1] = p[i];
        }
    }
    p
}

fn naive(points: &[G1Affine], scalars: &[Scalar]) -> G1Projective {
    points
        .iter()
        .zip(scalars)
        .map(|(p, s)| G1Projective::from(p) * s)
        .sum()
}

#[test]
fn msm_matches_the_cpu() {
    let mut rng = rng();
    for n in sizes() {
        let points = test_points(&mut rng, n);
        for kind in ScalarKind::ALL {
            let s = scalars(&mut rng, kind, n);
            let gpu = msm_g1(&points, &s).unwrap();
            let cpu = if n <= 3 {
                naive(&points, &s)
            } else {
                cpu_msm(&points, &s, None).unwrap()
            };
            assert_eq!(gpu, cpu, "MSM of {n} points, {kind:?} scalars");
            eprintln!("MSM n={n} {kind:?}: ok");
        }
    }
}

#[test]
fn msm_edge_cases() {
    let mut rng = rng();
    let p = random_points(&mut rng, 2);
    let (a, b) = (p[0], p[1]);
    let neg_a = (-G1Projective::from(a)).to_affine();
    let s = Scalar::random(&mut rng);
    let t = Scalar::random(&mut rng);
    let cases: Vec<(&str, Vec<G1Affine>, Vec<Scalar>)> = vec![
        ("P + P (doubling in a bucket)", vec![a, a], vec![s, s]),
        ("P - P", vec![a, neg_a], vec![s, s]),
        ("identity point", vec![G1Affine::identity(), b], vec![s, t]),
        ("only the identity", vec![G1Affine::identity()], vec![s]),
        ("P, P, P, Q", vec![a, a, a, b], vec![s, s, s, t]),
        (
            "small scalars",
            vec![a, b, a],
            vec![Scalar::from(3u64), Scalar::from(2u64), Scalar::from(5u64)],
        ),
    ];
    for (what, points, scalars) in cases {
        let gpu = msm_g1(&points, &scalars).unwrap();
        assert_eq!(gpu, naive(&points, &scalars), "{what}");
    }
    // Extra points past the scalars are ignored; fewer points than scalars is an error.
    assert_eq!(msm_g1(&[a, b], &[s]).unwrap(), G1Projective::from(a) * s);
    assert!(msm_g1(&[a], &[s, t]).is_err());
    assert_eq!(msm_g1(&[], &[]).unwrap(), G1Projective::identity());
}

fn cpu_batch_add(points: &[G1Affine], bitmap: &[u64]) -> G1Projective {
    let mut acc = G1Projective::identity();
    for (i, p) in points.iter().enumerate() {
        if bitmap.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1) {
            acc += p;
        }
    }
    acc
}

#[test]
fn batch_add_matches_the_cpu() {
    let mut rng = rng();
    let sizes: Vec<usize> = if small() {
        vec![0, 1, 63, 64, 65, 1000, 4096]
    } else {
        vec![0, 1, 63, 64, 65, 1000, (1 << 16) + 3, 1 << 18]
    };
    for n in sizes {
        let points = test_points(&mut rng, n);
        let words = n.div_ceil(64);
        let empty = vec![0u64; words];
        let full = Density::full(n).words().to_vec();
        let half = vec![0x5555_5555_5555_5555u64; words];
        let random: Vec<u64> = (0..words).map(|_| rng.next_u64()).collect();
        let sparse: Vec<u64> = (0..words)
            .map(|_| rng.next_u64() & rng.next_u64() & rng.next_u64())
            .collect();
        // Shorter than the points (reads as zeros) and all ones past the end (ignored).
        let short: Vec<u64> = random.iter().take(words / 2).copied().collect();
        let overlong = vec![u64::MAX; words + 2];
        let bitmaps: Vec<&[u64]> = vec![&empty, &full, &half, &random, &sparse, &short, &overlong];
        let gpu = batch_add_g1(&points, &bitmaps).unwrap();
        assert_eq!(gpu.len(), bitmaps.len());
        for (k, bitmap) in bitmaps.iter().enumerate() {
            let mut b = bitmap.to_vec();
            b.truncate(words);
            assert_eq!(
                gpu[k],
                cpu_batch_add(&points, &b),
                "batch add of {n} points, bitmap {k}"
            );
        }
        // One bitmap alone takes the single-bitmap kernel.
        let one = batch_add_g1(&points, &[&random]).unwrap();
        assert_eq!(one[0], gpu[3], "single bitmap of {n} points");
        eprintln!("batch add n={n}: ok");
    }
    assert!(batch_add_g1(&[], &[]).unwrap().is_empty());
}
