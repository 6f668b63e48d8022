//! Scalar vectors of the kinds the MSM tests cover: random, all zero, all one, all maximal
//! (r - 1), and a mix of those with small values.

use blstrs::Scalar;
use ff::Field;
use rand::RngCore;

#[derive(Clone, Copy, Debug)]
pub enum ScalarKind {
    Random,
    Zero,
    One,
    Max,
    Mixed,
}

impl ScalarKind {
    pub const ALL: [ScalarKind; 5] = [
        ScalarKind::Random,
        ScalarKind::Zero,
        ScalarKind::One,
        ScalarKind::Max,
        ScalarKind::Mixed,
    ];
}

/// `n` scalars of the given kind.
pub fn scalars(rng: &mut impl RngCore, kind: ScalarKind, n: usize) -> Vec<Scalar> {
    let max = -Scalar::ONE;
    (0..n)
        .map(|_| match kind {
            ScalarKind::Random => Scalar::random(&mut *rng),
            ScalarKind::Zero => Scalar::ZERO,
            ScalarKind::One => Scalar::ONE,
            ScalarKind::Max => max,
            ScalarKind::Mixed => match rng.next_u32() % 8 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                2 => max,
                3 => Scalar::from(u64::from(rng.next_u32() % 5)),
                _ => Scalar::random(&mut *rng),
            },
        })
        .collect()
}
