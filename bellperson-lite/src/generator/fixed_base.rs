//! Fixed-base scalar multiplication with byte windows.
//!
//! Parameter generation multiplies one base (a generator) by hundreds of thousands of
//! scalars. A table of `base * d * 256^i` for every byte value `d` and byte position `i`
//! (32 x 256 affine points) turns each product into at most 32 mixed additions, several
//! times faster than a general scalar multiplication.

use blstrs::Scalar;
use ff::PrimeField;
use group::Curve;
use rayon::prelude::*;

/// Byte positions of a scalar, and multiples per position.
const WINDOWS: usize = 32;
const DIGITS: usize = 256;

/// `base * d * 256^i` for `i` in `0..32`, `d` in `0..256`, in affine form.
pub struct FixedBaseTable<G: Curve>
where
    G::AffineRepr: Copy,
{
    /// Entry `i * 256 + d` is `base * d * 256^i`: one flat array, the layout the GPU's
    /// fixed-base kernel reads (`cuzk/fixed_base.h`).
    points: Vec<G::AffineRepr>,
}

impl<G: Curve + Send + Sync> FixedBaseTable<G>
where
    G::AffineRepr: Copy + Send + Sync,
{
    pub fn new(base: G) -> Self {
        let mut projective = Vec::with_capacity(WINDOWS * DIGITS);
        let mut window_base = base;
        for _ in 0..WINDOWS {
            let mut acc = G::identity();
            for _ in 0..DIGITS {
                projective.push(acc);
                acc += window_base;
            }
            // acc is now window_base * 256: the unit of the next byte position.
            window_base = acc;
        }
        let mut points = vec![G::identity().to_affine(); projective.len()];
        G::batch_normalize(&projective, &mut points);
        Self { points }
    }

    /// The whole table, entry `i * 256 + d` being `base * d * 256^i`.
    pub fn points(&self) -> &[G::AffineRepr] {
        &self.points
    }

    /// `base * scalar`.
    pub fn mul(&self, scalar: &Scalar) -> G {
        let bytes = scalar.to_repr();
        let mut acc = G::identity();
        for (window, &byte) in self.points.chunks(DIGITS).zip(bytes.as_ref()) {
            if byte != 0 {
                acc += &window[byte as usize];
            }
        }
        acc
    }

    /// `base * s` for every scalar, normalised to affine, in parallel.
    pub fn mul_all(&self, scalars: &[Scalar]) -> Vec<G::AffineRepr> {
        let mut out = vec![G::identity().to_affine(); scalars.len()];
        // Chunks normalised together: one field inversion per chunk.
        const CHUNK: usize = 1024;
        out.par_chunks_mut(CHUNK)
            .zip(scalars.par_chunks(CHUNK))
            .for_each(|(out, scalars)| {
                let projective: Vec<G> = scalars.iter().map(|s| self.mul(s)).collect();
                G::batch_normalize(&projective, out);
            });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::{G1Projective, G2Projective};
    use ff::Field;
    use group::Group;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn matches_plain_multiplication() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let g1 = G1Projective::random(&mut rng);
        let g2 = G2Projective::random(&mut rng);
        let t1 = FixedBaseTable::new(g1);
        let t2 = FixedBaseTable::new(g2);
        let mut scalars: Vec<Scalar> = (0..20).map(|_| Scalar::random(&mut rng)).collect();
        scalars.extend([Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(256)]);
        let all = t1.mul_all(&scalars);
        assert_eq!(t1.points().len(), 32 * 256);
        assert_eq!(
            G1Projective::from(t1.points()[256 * 3 + 5]),
            g1 * Scalar::from(5 << 24)
        );
        for (i, s) in scalars.iter().enumerate() {
            assert_eq!(t1.mul(s), g1 * s);
            assert_eq!(G1Projective::from(all[i]), g1 * s);
            assert_eq!(t2.mul(s), g2 * s);
        }
    }
}
