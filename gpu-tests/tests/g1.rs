//! GPU G1 arithmetic (XYZZ accumulators, results in blst's Jacobian form) against blstrs:
//! random points and the special cases (identity on either side, P + P with the same and with
//! different Z, P + (-P)), for the general addition, the mixed addition with an affine point,
//! doubling, affine doubling and the conversions alone.
#![cfg(feature = "cuda")]

use blstrs::{G1Affine, G1Projective, Scalar};
use cuzk_gpu_tests::compare::assert_same;
use cuzk_gpu_tests::rng;
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use supraseal_c2::testing;

const RANDOM: usize = 4096;

/// A random point whose Z is not 1 (a random multiple of the generator, then doubled).
fn random_point(rng: &mut ChaCha20Rng) -> G1Projective {
    (G1Projective::generator() * Scalar::random(&mut *rng)).double()
}

/// The same point with Z = 1: a different Jacobian representation.
fn rescaled(p: &G1Projective) -> G1Projective {
    G1Projective::from(p.to_affine())
}

fn check_points(
    what: &str,
    gpu: &[G1Projective],
    cpu: &[G1Projective],
    inputs: impl Fn(usize) -> String,
) {
    for (i, p) in gpu.iter().enumerate() {
        assert!(
            bool::from(p.is_on_curve()),
            "{what}: result {i} is not on the curve ({})",
            inputs(i)
        );
    }
    assert_same(what, gpu, cpu, inputs);
}

#[test]
fn add_matches_blstrs() {
    let mut rng = rng();
    let o = G1Projective::identity();
    let p = random_point(&mut rng);
    let q = random_point(&mut rng);
    let mut a = vec![p, p, p, p, p, o, o, p, -p];
    let mut b = vec![q, p, rescaled(&p), -p, -rescaled(&p), p, o, o, p];
    for _ in 0..RANDOM {
        a.push(random_point(&mut rng));
        b.push(random_point(&mut rng));
    }
    let gpu = testing::g1_add(&a, &b).unwrap();
    let cpu: Vec<G1Projective> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check_points("G1 add", &gpu, &cpu, |i| {
        format!("case {i}: a={:?} b={:?}", a[i], b[i])
    });
}

#[test]
fn mixed_add_matches_blstrs() {
    let mut rng = rng();
    let o = G1Projective::identity();
    let oa = G1Affine::identity();
    let p = random_point(&mut rng);
    let q = random_point(&mut rng);
    let (pa, qa) = (p.to_affine(), q.to_affine());
    let mut a = vec![p, p, p, o, p, o, rescaled(&p), rescaled(&p)];
    let mut b = vec![qa, pa, -pa, qa, oa, oa, pa, -pa];
    for _ in 0..RANDOM {
        a.push(random_point(&mut rng));
        b.push(random_point(&mut rng).to_affine());
    }
    let gpu = testing::g1_add_affine(&a, &b).unwrap();
    let cpu: Vec<G1Projective> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check_points("G1 mixed add", &gpu, &cpu, |i| {
        format!("case {i}: a={:?} b={:?}", a[i], b[i])
    });
    // The bucket sums' form of it (Fp's redundant form): each case twice, so that it runs
    // with the accumulator's coordinates as they are and raised by p.
    let a2: Vec<G1Projective> = a.iter().flat_map(|x| [*x; 2]).collect();
    let b2: Vec<G1Affine> = b.iter().flat_map(|x| [*x; 2]).collect();
    let cpu2: Vec<G1Projective> = cpu.iter().flat_map(|x| [*x; 2]).collect();
    let lazy = testing::g1_lazy_add_affine(&a2, &b2).unwrap();
    check_points("G1 redundant mixed add", &lazy, &cpu2, |i| {
        format!(
            "case {}: a={:?} b={:?} raised: {}",
            i / 2,
            a2[i],
            b2[i],
            i & 1
        )
    });
}

#[test]
fn doubling_matches_blstrs() {
    let mut rng = rng();
    let mut a = vec![G1Projective::identity(), G1Projective::generator()];
    a.extend((0..RANDOM).map(|_| random_point(&mut rng)));
    let gpu = testing::g1_double(&a).unwrap();
    let cpu: Vec<G1Projective> = a.iter().map(|x| x.double()).collect();
    check_points("G1 double", &gpu, &cpu, |i| {
        format!("case {i}: a={:?}", a[i])
    });

    let b: Vec<G1Affine> = a.iter().map(|x| x.to_affine()).collect();
    let gpu = testing::g1_double_affine(&b).unwrap();
    check_points("G1 affine double", &gpu, &cpu, |i| {
        format!("case {i}: b={:?}", b[i])
    });
}

#[test]
fn conversions_roundtrip() {
    let mut rng = rng();
    let mut a = vec![G1Projective::identity(), G1Projective::generator()];
    a.extend((0..RANDOM).map(|_| random_point(&mut rng)));
    let gpu = testing::g1_roundtrip(&a).unwrap();
    check_points("G1 XYZZ roundtrip", &gpu, &a, |i| {
        format!("case {i}: a={:?}", a[i])
    });
    assert!(
        bool::from(gpu[0].is_identity()),
        "the identity must come back as Z = 0"
    );
}
