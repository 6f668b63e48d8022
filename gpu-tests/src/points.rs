//! Cheap G1 and G2 inputs for the MSM tests and benchmarks.
//!
//! `G1Projective::random` costs a scalar multiplication per point, far too slow for 2^20 and
//! more; instead a walk adds one of a few random steps to the previous point and the whole
//! sequence is normalized with one batch inversion. The points are distinct in practice and
//! unrelated enough for testing bucket sums; repeated points and the identity are placed on
//! purpose where a test wants them.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use group::prime::{PrimeCurve, PrimeCurveAffine};
use rand::RngCore;

/// `n` pseudo-random points of the group G: a random start plus a walk of 16 random steps.
fn walk<G: PrimeCurve>(rng: &mut impl RngCore, n: usize) -> Vec<G::Affine> {
    let steps: Vec<G> = (0..16).map(|_| G::random(&mut *rng)).collect();
    let mut cur = G::random(&mut *rng);
    let mut proj = Vec::with_capacity(n);
    for _ in 0..n {
        proj.push(cur);
        cur += steps[(rng.next_u32() % 16) as usize];
    }
    let mut out = vec![G::Affine::identity(); n];
    G::batch_normalize(&proj, &mut out);
    out
}

/// `n` pseudo-random points of G, all distinct in practice, built in parallel: chunks of
/// 2^16 made by [`walk`], each from its own generator seeded from `seed`.
fn distinct<G: PrimeCurve>(seed: u64, n: usize) -> Vec<G::Affine>
where
    G::Affine: Send + Sync,
{
    use rand::SeedableRng;
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    let mut out = vec![G::Affine::identity(); n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(i, chunk)| {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(
                seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            chunk.copy_from_slice(&walk::<G>(&mut rng, chunk.len()));
        });
    out
}

/// `n` pseudo-random G1 points (see the module's note).
pub fn random_points(rng: &mut impl RngCore, n: usize) -> Vec<G1Affine> {
    walk::<G1Projective>(rng, n)
}

/// `n` pseudo-random G2 points.
pub fn random_points_g2(rng: &mut impl RngCore, n: usize) -> Vec<G2Affine> {
    walk::<G2Projective>(rng, n)
}

/// `n` distinct G1 points built in parallel from `seed`. For benchmarks, whose points must
/// not repeat (a few distinct points would sit in the GPU's cache and flatter the memory
/// traffic).
pub fn distinct_points(seed: u64, n: usize) -> Vec<G1Affine> {
    distinct::<G1Projective>(seed, n)
}

/// `n` distinct G2 points built in parallel from `seed`.
pub fn distinct_points_g2(seed: u64, n: usize) -> Vec<G2Affine> {
    distinct::<G2Projective>(seed, n)
}
