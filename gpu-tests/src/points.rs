//! Cheap G1 inputs for the MSM tests and benchmarks.
//!
//! `G1Projective::random` costs a scalar multiplication per point, far too slow for 2^20 and
//! more; instead a walk adds one of a few random steps to the previous point and the whole
//! sequence is normalized with one batch inversion. The points are distinct in practice and
//! unrelated enough for testing bucket sums; repeated points and the identity are placed on
//! purpose where a test wants them.

use blstrs::{G1Affine, G1Projective};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::RngCore;

/// `n` pseudo-random G1 points: a random start plus a walk of 16 random steps.
pub fn random_points(rng: &mut impl RngCore, n: usize) -> Vec<G1Affine> {
    let steps: Vec<G1Projective> = (0..16).map(|_| G1Projective::random(&mut *rng)).collect();
    let mut cur = G1Projective::random(&mut *rng);
    let mut proj = Vec::with_capacity(n);
    for _ in 0..n {
        proj.push(cur);
        cur += steps[(rng.next_u32() % 16) as usize];
    }
    let mut out = vec![G1Affine::identity(); n];
    G1Projective::batch_normalize(&proj, &mut out);
    out
}

/// `n` pseudo-random G1 points, all distinct in practice, built in parallel: chunks of 2^16
/// made by [`random_points`], each from its own generator seeded from `seed`. For benchmarks,
/// whose points must not repeat (a few distinct points would sit in the GPU's cache and
/// flatter the memory traffic).
pub fn distinct_points(seed: u64, n: usize) -> Vec<G1Affine> {
    use rand::SeedableRng;
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    let mut out = vec![G1Affine::identity(); n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(
                seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            chunk.copy_from_slice(&random_points(&mut rng, chunk.len()));
        });
    out
}
