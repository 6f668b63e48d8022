//! Multi-scalar multiplication on the CPU, through blst's Pippenger.
//!
//! Filecoin witnesses are dominated by bits: most scalars of the A, B and L queries are 0
//! or 1. Feeding those to Pippenger wastes its bucket work on them, so every MSM is split
//! three ways (by [`MsmSplit`], the GPU prover's split): zeros are dropped, ones are summed
//! with blst's bulk (affine, shared-inversion) addition run by run in parallel, and only the
//! remaining scalars go through blst's multi-threaded tiled Pippenger.
//!
//! Density bitmaps follow bellperson's convention (see [`crate::density`]): scalar `i`
//! takes part only if bit `i` is set, and the `k`-th set bit uses `bases[k]`.

use std::ops::AddAssign;

use blst::{blst_p1_affine, blst_p2_affine, MultiPoint};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;
use rayon::prelude::*;

use supraseal_c2::split::{MsmSplit, ScalarPart};

use crate::density::Density;
use crate::error::ProverError;

/// Bits of a BLS12-381 scalar (the modulus is just below 2^255).
const SCALAR_BITS: usize = 255;
const SCALAR_BYTES: usize = 32;

/// How the scalars of one MSM were split (only scalars selected by the density count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsmStats {
    /// Skipped.
    pub zeros: usize,
    /// Summed with point additions.
    pub ones: usize,
    /// Sent to Pippenger.
    pub others: usize,
}

/// `sum_i scalars[i] * bases[i]` over G1; see the module docs for `density`.
///
/// Without a density, `bases` may be longer than `scalars` (the tail is ignored), as in
/// bellperson. With one, `density.len()` must equal `scalars.len()` and `bases` needs at
/// least `density.count_ones()` points.
pub fn msm_g1(
    bases: &[G1Affine],
    scalars: &[Scalar],
    density: Option<&Density>,
) -> Result<G1Projective, ProverError> {
    msm::<G1Curve>(bases, scalars, density).map(|(p, _)| p)
}

/// [`msm_g1`] over G2.
pub fn msm_g2(
    bases: &[G2Affine],
    scalars: &[Scalar],
    density: Option<&Density>,
) -> Result<G2Projective, ProverError> {
    msm::<G2Curve>(bases, scalars, density).map(|(p, _)| p)
}

/// `sum_k s_k * bases[k]` over a split made beforehand ([`MsmSplit::build`]): the same sum as
/// [`msm_g1`] of the scalars it was made from. MSMs over the same scalars (B's G1 and G2
/// queries) share one split instead of reading the values once each. `bases` needs at least
/// `split.len` points.
pub fn msm_g1_split(bases: &[G1Affine], split: &MsmSplit) -> Result<G1Projective, ProverError> {
    // Its fields are public: one not made by MsmSplit::build could point past the bases.
    split.check()?;
    sum_split::<G1Curve>(bases, split)
}

/// [`msm_g1_split`] over G2.
pub fn msm_g2_split(bases: &[G2Affine], split: &MsmSplit) -> Result<G2Projective, ProverError> {
    split.check()?;
    sum_split::<G2Curve>(bases, split)
}

/// [`msm_g1`], also returning how the scalars were split.
pub fn msm_g1_with_stats(
    bases: &[G1Affine],
    scalars: &[Scalar],
    density: Option<&Density>,
) -> Result<(G1Projective, MsmStats), ProverError> {
    msm::<G1Curve>(bases, scalars, density)
}

/// [`msm_g2`], also returning how the scalars were split.
pub fn msm_g2_with_stats(
    bases: &[G2Affine],
    scalars: &[Scalar],
    density: Option<&Density>,
) -> Result<(G2Projective, MsmStats), ProverError> {
    msm::<G2Curve>(bases, scalars, density)
}

/// What the generic MSM needs from a group: blstrs points for the additions, and the
/// raw blst affine type that Pippenger consumes.
trait Curve {
    type Affine: Sync;
    type Proj: Group + Send + for<'a> AddAssign<&'a Self::Affine>;
    type Raw: Copy + Default + Send + Sync;

    fn raw(p: &Self::Affine) -> Self::Raw;
    /// `points` is non-empty; `scalars` holds 32 little-endian bytes per point.
    fn pippenger(points: &[Self::Raw], scalars: &[u8]) -> Self::Proj;
    /// The sum of the points behind `points` (non-empty, none null): blst's bulk addition
    /// (affine additions that share one inversion per batch, about half the field
    /// multiplications of mixed additions into a projective sum), on the calling thread,
    /// reading the points in place: gathering copies of them cost more than the additions
    /// saved (192 bytes per G2 point, gigabytes at 2^24).
    fn bulk_add(points: &[*const Self::Raw]) -> Self::Proj;
    fn raw_ptr(p: &Self::Affine) -> *const Self::Raw;
}

struct G1Curve;
struct G2Curve;

macro_rules! impl_curve {
    ($curve:ty, $affine:ty, $proj:ty, $raw:ty, $bulk_add:path) => {
        impl Curve for $curve {
            type Affine = $affine;
            type Proj = $proj;
            type Raw = $raw;

            fn raw(p: &$affine) -> $raw {
                *p.as_ref()
            }

            fn pippenger(points: &[$raw], scalars: &[u8]) -> $proj {
                let sum = points.mult(scalars, SCALAR_BITS);
                // blstrs has no constructor from a raw blst point, but exposes it mutably.
                let mut out = <$proj>::identity();
                *out.as_mut() = sum;
                out
            }

            fn bulk_add(points: &[*const $raw]) -> $proj {
                let mut out = <$proj>::identity();
                if points.is_empty() {
                    return out;
                }
                // SAFETY: `points` holds `points.len()` pointers, each to a live affine point
                // (the callers take them from a borrowed slice of bases that outlives this
                // call), none null (blst would read a null entry as "the point after the
                // previous one"); blst reads exactly that many and writes a valid point into
                // `out`, a blst point (blstrs wraps it transparently).
                unsafe { $bulk_add(out.as_mut(), points.as_ptr(), points.len()) };
                out
            }

            fn raw_ptr(p: &$affine) -> *const $raw {
                p.as_ref()
            }
        }
    };
}

impl_curve!(
    G1Curve,
    G1Affine,
    G1Projective,
    blst_p1_affine,
    blst::blst_p1s_add
);
impl_curve!(
    G2Curve,
    G2Affine,
    G2Projective,
    blst_p2_affine,
    blst::blst_p2s_add
);

fn check_lengths(
    bases: usize,
    scalars: usize,
    density: Option<&Density>,
) -> Result<(), ProverError> {
    let needed = match density {
        None => scalars,
        Some(d) => {
            if d.len() != scalars {
                return Err(ProverError::LengthMismatch {
                    what: "msm density bits",
                    expected: scalars,
                    actual: d.len(),
                });
            }
            d.count_ones()
        }
    };
    if bases < needed {
        return Err(ProverError::LengthMismatch {
            what: "msm bases",
            expected: needed,
            actual: bases,
        });
    }
    Ok(())
}

/// Set bits of `ones` per task of the ones' sums: enough to keep the bulk additions' shared
/// inversions cheap, few enough tasks to balance the threads.
const ONES_WORDS_PER_TASK: usize = 1 << 10;

fn msm<C: Curve>(
    bases: &[C::Affine],
    scalars: &[Scalar],
    density: Option<&Density>,
) -> Result<(C::Proj, MsmStats), ProverError> {
    check_lengths(bases.len(), scalars.len(), density)?;
    // The same split as the GPU's: point k is the k-th scalar the density selects.
    let points = density.map_or(scalars.len(), Density::count_ones);
    let part = ScalarPart {
        scalars,
        density: density.map(Density::words),
        classes: None,
    };
    let split = MsmSplit::build(points, &[part])?;
    let ones = split.ones_count();
    let stats = MsmStats {
        zeros: points - ones - split.other_index.len(),
        ones,
        others: split.other_index.len(),
    };
    Ok((sum_split::<C>(bases, &split)?, stats))
}

/// The sum a well-formed split describes ([`MsmSplit::check`]): the ones' bases added, the
/// others' through Pippenger.
fn sum_split<C: Curve>(bases: &[C::Affine], split: &MsmSplit) -> Result<C::Proj, ProverError> {
    if bases.len() < split.len {
        return Err(ProverError::LengthMismatch {
            what: "msm bases",
            expected: split.len,
            actual: bases.len(),
        });
    }

    // The ones: their bases summed with blst's bulk addition, a run of bitmap words per task.
    let ones_sums: Vec<C::Proj> = split
        .ones
        .par_chunks(ONES_WORDS_PER_TASK)
        .enumerate()
        .map(|(task, words)| {
            let first = task * ONES_WORDS_PER_TASK * 64;
            let mut ones = Vec::new();
            for (w, &word) in words.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let k = first + 64 * w + bits.trailing_zeros() as usize;
                    ones.push(C::raw_ptr(&bases[k]));
                    bits &= bits - 1;
                }
            }
            C::bulk_add(&ones)
        })
        .collect();
    let mut total = C::Proj::identity();
    for sum in ones_sums {
        total += sum;
    }

    // The others through Pippenger, their scalars little-endian as blst wants them. Empty
    // inputs stay away from blst's Pippenger, which cannot take zero points.
    if split.other_index.is_empty() {
        return Ok(total);
    }
    let others: Vec<C::Raw> = split
        .other_index
        .par_iter()
        .map(|&k| C::raw(&bases[k as usize]))
        .collect();
    let mut bytes = vec![0u8; others.len() * SCALAR_BYTES];
    bytes
        .par_chunks_mut(SCALAR_BYTES)
        .zip(split.other_scalars.par_iter())
        .for_each(|(b, s)| b.copy_from_slice(&s.to_bytes_le()));
    total += C::pippenger(&others, &bytes);
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::prime::PrimeCurveAffine;
    use group::Curve as _;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use supraseal_c2::split::SplitError;

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn g1_bases(n: usize, seed: u64) -> Vec<G1Affine> {
        let mut r = rng(seed);
        // Random multiples of the generator: far cheaper than hashing to the curve.
        let g = G1Projective::generator();
        let proj: Vec<G1Projective> = (0..n).map(|_| g * Scalar::random(&mut r)).collect();
        let mut out = vec![G1Affine::default(); n];
        G1Projective::batch_normalize(&proj, &mut out);
        out
    }

    fn g2_bases(n: usize, seed: u64) -> Vec<G2Affine> {
        let mut r = rng(seed);
        let g = G2Projective::generator();
        let proj: Vec<G2Projective> = (0..n).map(|_| g * Scalar::random(&mut r)).collect();
        let mut out = vec![G2Affine::default(); n];
        G2Projective::batch_normalize(&proj, &mut out);
        out
    }

    /// Scalars of the given mix: 0 = all zero, 1 = all one, 2 = random, 3 = a mix of
    /// zeros, ones and random values (the Filecoin shape).
    fn scalars(n: usize, mix: u8, seed: u64) -> Vec<Scalar> {
        let mut r = rng(seed);
        (0..n)
            .map(|_| match mix {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                2 => Scalar::random(&mut r),
                _ => match r.gen_range(0..10) {
                    0..=3 => Scalar::ZERO,
                    4..=7 => Scalar::ONE,
                    8 => -Scalar::ONE,
                    _ => Scalar::random(&mut r),
                },
            })
            .collect()
    }

    fn density(n: usize, seed: u64) -> Density {
        let mut r = rng(seed);
        let mut d = Density::new();
        for _ in 0..n {
            d.push(r.gen_bool(0.6));
        }
        d
    }

    fn naive<G: Group<Scalar = Scalar>, A: Copy + Into<G>>(
        bases: &[A],
        scalars: &[Scalar],
        density: Option<&Density>,
    ) -> G {
        let mut sum = G::identity();
        let mut k = 0;
        for (i, s) in scalars.iter().enumerate() {
            if density.is_some_and(|d| !d.get(i)) {
                continue;
            }
            sum += bases[k].into() * s;
            k += 1;
        }
        sum
    }

    #[test]
    fn g1_matches_naive() {
        let bases = g1_bases(1200, 1);
        for n in [0usize, 1, 3, 17, 31, 32, 33, 100, 1000] {
            for mix in 0..4 {
                let s = scalars(n, mix, n as u64 * 10 + mix as u64);
                let (got, stats) = msm_g1_with_stats(&bases, &s, None).unwrap();
                assert_eq!(
                    got,
                    naive::<G1Projective, _>(&bases, &s, None),
                    "n={n} mix={mix}"
                );
                assert_eq!(stats.zeros + stats.ones + stats.others, n);
                if mix == 0 {
                    assert_eq!(stats.zeros, n);
                }
                if mix == 1 {
                    assert_eq!(stats.ones, n);
                }

                let d = density(n, n as u64 + 99);
                let (got, stats) = msm_g1_with_stats(&bases, &s, Some(&d)).unwrap();
                assert_eq!(
                    got,
                    naive::<G1Projective, _>(&bases, &s, Some(&d)),
                    "density n={n} mix={mix}"
                );
                assert_eq!(stats.zeros + stats.ones + stats.others, d.count_ones());
                // Exactly count_ones bases is enough.
                let tight = &bases[..d.count_ones()];
                assert_eq!(msm_g1(tight, &s, Some(&d)).unwrap(), got);
            }
        }
    }

    /// Large enough for several chunks and blst's multi-threaded tiled path.
    #[test]
    fn g1_large_mixed_with_density() {
        let n = 40_000;
        let bases = g1_bases(n, 2);
        let s = scalars(n, 3, 3);
        assert_eq!(
            msm_g1(&bases, &s, None).unwrap(),
            naive::<G1Projective, _>(&bases, &s, None)
        );
        let d = density(n, 4);
        assert_eq!(
            msm_g1(&bases, &s, Some(&d)).unwrap(),
            naive::<G1Projective, _>(&bases, &s, Some(&d))
        );
        let full = Density::full(n);
        assert_eq!(
            msm_g1(&bases, &s, Some(&full)).unwrap(),
            msm_g1(&bases, &s, None).unwrap()
        );
    }

    #[test]
    fn identity_bases_are_handled() {
        let mut bases = g1_bases(100, 5);
        for i in (0..100).step_by(7) {
            bases[i] = G1Affine::identity();
        }
        for mix in 1..4 {
            let s = scalars(100, mix, 6);
            assert_eq!(
                msm_g1(&bases, &s, None).unwrap(),
                naive::<G1Projective, _>(&bases, &s, None)
            );
        }
    }

    /// The ones go through blst's bulk addition: repeated points (doublings), a point and its
    /// negation, and the identity, in runs long enough for its multi-threaded path.
    #[test]
    fn ones_with_repeats_negations_and_identity() {
        let n = 2000;
        let mut g1 = g1_bases(n, 9);
        let mut g2 = g2_bases(n, 10);
        for i in (0..n).step_by(5) {
            g1[i] = g1[0];
            g2[i] = g2[0];
        }
        for i in (3..n).step_by(11) {
            g1[i] = -g1[i - 1];
            g2[i] = -g2[i - 1];
        }
        for i in (7..n).step_by(13) {
            g1[i] = G1Affine::identity();
            g2[i] = G2Affine::identity();
        }
        let ones = vec![Scalar::ONE; n];
        assert_eq!(
            msm_g1(&g1, &ones, None).unwrap(),
            naive::<G1Projective, _>(&g1, &ones, None)
        );
        assert_eq!(
            msm_g2(&g2, &ones, None).unwrap(),
            naive::<G2Projective, _>(&g2, &ones, None)
        );
        let mixed = scalars(n, 3, 11);
        assert_eq!(
            msm_g2(&g2, &mixed, None).unwrap(),
            naive::<G2Projective, _>(&g2, &mixed, None)
        );
    }

    #[test]
    fn g2_matches_naive() {
        let bases = g2_bases(300, 7);
        for n in [0usize, 1, 3, 17, 100, 300] {
            for mix in 0..4 {
                let s = scalars(n, mix, 1000 + n as u64 * 10 + mix as u64);
                assert_eq!(
                    msm_g2(&bases, &s, None).unwrap(),
                    naive::<G2Projective, _>(&bases, &s, None),
                    "n={n} mix={mix}"
                );
                let d = density(n, n as u64 + 7);
                let (got, stats) = msm_g2_with_stats(&bases, &s, Some(&d)).unwrap();
                assert_eq!(got, naive::<G2Projective, _>(&bases, &s, Some(&d)));
                assert_eq!(stats.zeros + stats.ones + stats.others, d.count_ones());
            }
        }
    }

    #[test]
    fn empty_is_identity() {
        assert!(bool::from(msm_g1(&[], &[], None).unwrap().is_identity()));
        assert!(bool::from(msm_g2(&[], &[], None).unwrap().is_identity()));
        let d = Density::new();
        assert!(bool::from(
            msm_g1(&[], &[], Some(&d)).unwrap().is_identity()
        ));
        // All bits clear: no base needed.
        let mut d = Density::new();
        (0..10).for_each(|_| d.push(false));
        let s = scalars(10, 2, 1);
        assert!(bool::from(msm_g1(&[], &s, Some(&d)).unwrap().is_identity()));
    }

    #[test]
    fn wrong_lengths_are_errors() {
        let bases = g1_bases(10, 8);
        let s = scalars(11, 2, 9);
        match msm_g1(&bases, &s, None) {
            Err(ProverError::LengthMismatch {
                what: "msm bases",
                expected: 11,
                actual: 10,
            }) => {}
            other => panic!("unexpected {other:?}"),
        }
        let d = Density::full(10);
        assert!(matches!(
            msm_g1(&bases, &s, Some(&d)),
            Err(ProverError::LengthMismatch {
                expected: 11,
                actual: 10,
                ..
            })
        ));
        let d = Density::full(11);
        assert!(matches!(
            msm_g1(&bases, &s, Some(&d)),
            Err(ProverError::LengthMismatch {
                what: "msm bases",
                expected: 11,
                actual: 10
            })
        ));
        let g2 = g2_bases(2, 10);
        assert!(matches!(
            msm_g2(&g2, &s[..3], None),
            Err(ProverError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn extra_bases_are_ignored() {
        let bases = g1_bases(50, 11);
        let s = scalars(20, 3, 12);
        assert_eq!(
            msm_g1(&bases, &s, None).unwrap(),
            msm_g1(&bases[..20], &s, None).unwrap()
        );
    }

    /// One split serves a G1 and a G2 query over the same scalars (B's), each sum equal to the
    /// direct one; a split longer than the bases, or put together wrongly, is refused.
    #[test]
    fn a_shared_split_gives_both_sums() {
        let (g1, g2) = (g1_bases(500, 21), g2_bases(500, 22));
        for mix in 0..4 {
            let s = scalars(700, mix, 23 + mix as u64);
            let d = density(700, 24);
            let points = d.count_ones();
            let split = MsmSplit::build(
                points,
                &[ScalarPart {
                    scalars: &s,
                    density: Some(d.words()),
                    classes: None,
                }],
            )
            .unwrap();
            assert_eq!(
                msm_g1_split(&g1, &split).unwrap(),
                naive::<G1Projective, _>(&g1, &s, Some(&d)),
                "mix {mix}"
            );
            assert_eq!(
                msm_g2_split(&g2, &split).unwrap(),
                naive::<G2Projective, _>(&g2, &s, Some(&d)),
                "mix {mix}"
            );
            assert!(matches!(
                msm_g2_split(&g2[..points - 1], &split),
                Err(ProverError::LengthMismatch {
                    what: "msm bases",
                    ..
                })
            ));
        }
        let s = scalars(64, 2, 25);
        let mut split = MsmSplit::build(
            64,
            &[ScalarPart {
                scalars: &s,
                density: None,
                classes: None,
            }],
        )
        .unwrap();
        split.other_index[0] = 64;
        assert!(matches!(
            msm_g1_split(&g1, &split),
            Err(ProverError::Split(SplitError::Malformed { len: 64, .. }))
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        #[test]
        fn prop_g1_matches_naive(
            picks in proptest::collection::vec((0u8..4, any::<bool>()), 0..300),
            seed in any::<u64>(),
        ) {
            let n = picks.len();
            let bases = g1_bases(n, seed);
            let mut r = rng(seed ^ 1);
            let s: Vec<Scalar> = picks
                .iter()
                .map(|(m, _)| match m {
                    0 => Scalar::ZERO,
                    1 => Scalar::ONE,
                    2 => Scalar::from(r.gen::<u64>()),
                    _ => Scalar::random(&mut r),
                })
                .collect();
            let mut d = Density::new();
            picks.iter().for_each(|(_, bit)| d.push(*bit));
            prop_assert_eq!(
                msm_g1(&bases, &s, None).unwrap().to_affine(),
                naive::<G1Projective, _>(&bases, &s, None).to_affine()
            );
            prop_assert_eq!(
                msm_g1(&bases, &s, Some(&d)).unwrap().to_affine(),
                naive::<G1Projective, _>(&bases, &s, Some(&d)).to_affine()
            );
        }
    }
}
