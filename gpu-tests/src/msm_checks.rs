//! The MSM and batch-addition checks of `tests/msm.rs` (G1) and `tests/msm_g2.rs` (G2), written
//! once over the group: the GPU's results against blst on the CPU (bellperson-lite's MSM, or
//! plain sums and products for tiny inputs). Sizes 0, 1, 2, 3, 1000, 2^16+3 and 2^20 (at most
//! 2^12 with CUZK_SMALL=1); scalars of every [`ScalarKind`]; points with the identity and
//! repeated points placed among them.

use std::fmt::Debug;

use bellperson_lite::density::Density;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::prime::{PrimeCurve, PrimeCurveAffine};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use supraseal_c2::CudaError;

use crate::points::{random_points, random_points_g2};
use crate::scalars::{scalars, ScalarKind};
use crate::{rng, small};

/// A group the GPU sums over, with its CPU reference.
pub trait MsmGroup: PrimeCurve<Affine = Self::Point, Scalar = Scalar> + Debug {
    type Point: PrimeCurveAffine<Curve = Self> + Copy + Debug;
    const NAME: &'static str;
    fn random_points(rng: &mut ChaCha20Rng, n: usize) -> Vec<Self::Point>;
    fn gpu_msm(points: &[Self::Point], scalars: &[Scalar]) -> Result<Self, CudaError>;
    fn cpu_msm(points: &[Self::Point], scalars: &[Scalar]) -> Self;
    fn gpu_batch_add(points: &[Self::Point], bitmaps: &[&[u64]]) -> Result<Vec<Self>, CudaError>;
}

impl MsmGroup for G1Projective {
    type Point = G1Affine;
    const NAME: &'static str = "G1";
    fn random_points(rng: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
        random_points(rng, n)
    }
    fn gpu_msm(points: &[G1Affine], scalars: &[Scalar]) -> Result<Self, CudaError> {
        supraseal_c2::msm::msm_g1(points, scalars)
    }
    fn cpu_msm(points: &[G1Affine], scalars: &[Scalar]) -> Self {
        bellperson_lite::msm::msm_g1(points, scalars, None).expect("CPU MSM")
    }
    fn gpu_batch_add(points: &[G1Affine], bitmaps: &[&[u64]]) -> Result<Vec<Self>, CudaError> {
        supraseal_c2::msm::batch_add_g1(points, bitmaps)
    }
}

impl MsmGroup for G2Projective {
    type Point = G2Affine;
    const NAME: &'static str = "G2";
    fn random_points(rng: &mut ChaCha20Rng, n: usize) -> Vec<G2Affine> {
        random_points_g2(rng, n)
    }
    fn gpu_msm(points: &[G2Affine], scalars: &[Scalar]) -> Result<Self, CudaError> {
        supraseal_c2::msm::msm_g2(points, scalars)
    }
    fn cpu_msm(points: &[G2Affine], scalars: &[Scalar]) -> Self {
        bellperson_lite::msm::msm_g2(points, scalars, None).expect("CPU MSM")
    }
    fn gpu_batch_add(points: &[G2Affine], bitmaps: &[&[u64]]) -> Result<Vec<Self>, CudaError> {
        supraseal_c2::msm::batch_add_g2(points, bitmaps)
    }
}

/// Random points with the identity at a few places and some points repeated (so that a
/// bucket sees P twice and must double).
fn test_points<G: MsmGroup>(rng: &mut ChaCha20Rng, n: usize) -> Vec<G::Point> {
    let mut p = G::random_points(rng, n);
    if n >= 3 {
        p[n / 2] = G::Point::identity();
        p[n - 1] = p[0];
        for _ in 0..n / 100 {
            let i = (rng.next_u64() as usize) % (n - 1);
            p[i + 1] = p[i];
        }
    }
    p
}

fn naive<G: MsmGroup>(points: &[G::Point], scalars: &[Scalar]) -> G {
    points
        .iter()
        .zip(scalars)
        .map(|(p, s)| p.to_curve() * s)
        .fold(G::identity(), |acc, x| acc + x)
}

/// The MSM of every size and scalar kind equals the CPU's.
pub fn msm_matches_the_cpu<G: MsmGroup>() {
    let mut rng = rng();
    let sizes = if small() {
        // 5000: more than CHUNK * PIECE / 2 = 4096 points (two partial sums per chunk of 128),
        // so equal scalars take a round of groups.
        vec![0, 1, 2, 3, 1000, 4096, 5000]
    } else {
        vec![0, 1, 2, 3, 1000, (1 << 16) + 3, 1 << 20]
    };
    for n in sizes {
        let points = test_points::<G>(&mut rng, n);
        for kind in ScalarKind::ALL {
            let s = scalars(&mut rng, kind, n);
            let gpu = G::gpu_msm(&points, &s).unwrap();
            let cpu = if n <= 3 {
                naive::<G>(&points, &s)
            } else {
                G::cpu_msm(&points, &s)
            };
            assert_eq!(gpu, cpu, "{} MSM of {n} points, {kind:?} scalars", G::NAME);
            eprintln!("{} MSM n={n} {kind:?}: ok", G::NAME);
        }
    }
}

/// Doubling inside a bucket, P - P, the identity, small scalars, and the length rules.
pub fn msm_edge_cases<G: MsmGroup>() {
    let mut rng = rng();
    let p = G::random_points(&mut rng, 2);
    let (a, b) = (p[0], p[1]);
    let neg_a = (-a.to_curve()).to_affine();
    let inf = G::Point::identity();
    let s = Scalar::random(&mut rng);
    let t = Scalar::random(&mut rng);
    // (what, points, scalars)
    type Case<'a, P> = (&'a str, Vec<P>, Vec<Scalar>);
    let cases: Vec<Case<'_, G::Point>> = vec![
        ("P + P (doubling in a bucket)", vec![a, a], vec![s, s]),
        ("P - P", vec![a, neg_a], vec![s, s]),
        ("identity point", vec![inf, b], vec![s, t]),
        ("only the identity", vec![inf], vec![s]),
        ("P, P, P, Q", vec![a, a, a, b], vec![s, s, s, t]),
        (
            "small scalars",
            vec![a, b, a],
            vec![Scalar::from(3u64), Scalar::from(2u64), Scalar::from(5u64)],
        ),
        ("the generator", vec![G::Point::generator()], vec![s]),
    ];
    for (what, points, scalars) in cases {
        let gpu = G::gpu_msm(&points, &scalars).unwrap();
        assert_eq!(gpu, naive::<G>(&points, &scalars), "{} {what}", G::NAME);
    }
    // Extra points past the scalars are ignored; fewer points than scalars is an error.
    assert_eq!(G::gpu_msm(&[a, b], &[s]).unwrap(), a.to_curve() * s);
    assert!(G::gpu_msm(&[a], &[s, t]).is_err());
    assert_eq!(G::gpu_msm(&[], &[]).unwrap(), G::identity());
}

fn cpu_batch_add<G: MsmGroup>(points: &[G::Point], bitmap: &[u64]) -> G {
    let mut acc = G::identity();
    for (i, p) in points.iter().enumerate() {
        if bitmap.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1) {
            acc += p.to_curve();
        }
    }
    acc
}

/// Batch addition over bitmaps empty, full, regular, random, sparse, shorter than the points
/// (read as zeros) and longer (ignored past the points), in one call and one at a time.
pub fn batch_add_matches_the_cpu<G: MsmGroup>() {
    let mut rng = rng();
    let sizes: Vec<usize> = if small() {
        vec![0, 1, 63, 64, 65, 1000, 4096]
    } else {
        vec![0, 1, 63, 64, 65, 1000, (1 << 16) + 3, 1 << 18]
    };
    for n in sizes {
        let points = test_points::<G>(&mut rng, n);
        let words = n.div_ceil(64);
        let empty = vec![0u64; words];
        let full = Density::full(n).words().to_vec();
        let half = vec![0x5555_5555_5555_5555u64; words];
        let random: Vec<u64> = (0..words).map(|_| rng.next_u64()).collect();
        let sparse: Vec<u64> = (0..words)
            .map(|_| rng.next_u64() & rng.next_u64() & rng.next_u64())
            .collect();
        let short: Vec<u64> = random.iter().take(words / 2).copied().collect();
        let overlong = vec![u64::MAX; words + 2];
        let bitmaps: Vec<&[u64]> = vec![&empty, &full, &half, &random, &sparse, &short, &overlong];
        let gpu = G::gpu_batch_add(&points, &bitmaps).unwrap();
        assert_eq!(gpu.len(), bitmaps.len());
        for (k, bitmap) in bitmaps.iter().enumerate() {
            let mut b = bitmap.to_vec();
            b.truncate(words);
            assert_eq!(
                gpu[k],
                cpu_batch_add::<G>(&points, &b),
                "{} batch add of {n} points, bitmap {k}",
                G::NAME
            );
        }
        let one = G::gpu_batch_add(&points, &[&random]).unwrap();
        assert_eq!(one[0], gpu[3], "{} single bitmap of {n} points", G::NAME);
        eprintln!("{} batch add n={n}: ok", G::NAME);
    }
    assert!(G::gpu_batch_add(&[], &[]).unwrap().is_empty());
}
