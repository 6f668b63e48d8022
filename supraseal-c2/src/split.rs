//! The CPU half of the split MSMs: the scalars of one query vector sorted into zeros (dropped),
//! ones (a bitmap, summed on the GPU by batch addition) and the rest (index and scalar pairs,
//! summed by a Pippenger "tail" MSM). Filecoin witnesses are mostly bits, so the tail is small.
//!
//! A query vector's points belong to a sequence of scalar slices, each either taken whole or
//! filtered by a density bitmap (the parameters hold a point only for the variables whose
//! polynomial is not zero): for A, the inputs whole then the aux values A's density selects;
//! for B, the inputs and the aux values B's two densities select; for L, the aux values whole.
//! The k-th point then belongs to the k-th selected scalar.
//!
//! Each scalar is read once to find its class ([`ScalarClasses`]: one, or neither zero nor
//! one); the splits are then made from the class bitmaps and the densities, and only the
//! others' values are read again. A witness's aux values feed three query vectors (L, A and
//! B), so one classification serves all three splits.
//!
//! Plain Rust, built and tested without the `cuda` feature.

use std::borrow::Cow;

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

/// One run of scalars of a query vector, whole or filtered by a density bitmap.
#[derive(Clone, Copy, Debug)]
pub struct ScalarPart<'a> {
    /// The values of the variables.
    pub scalars: &'a [Scalar],
    /// With `Some(words)`, only the scalars whose bit is set (bit i is bit i % 64 of word
    /// i / 64) have a point; with `None`, all do.
    pub density: Option<&'a [u64]>,
    /// The classes of `scalars` (that very slice), when the caller has them: made once for
    /// scalars that several splits read. With `None`, [`MsmSplit::build`] makes them.
    pub classes: Option<&'a ScalarClasses<'a>>,
}

/// The classes of one slice of scalars, as bitmaps (bit i is bit i % 64 of word i / 64): which
/// are one, and which are neither zero nor one ("others"); zeros have neither bit. Made only
/// by [`ScalarClasses::of`] and tied to its slice, so that classes of other values can never
/// split a part ([`SplitError::ForeignClasses`]).
#[derive(Clone, Debug)]
pub struct ScalarClasses<'a> {
    scalars: &'a [Scalar],
    ones: Vec<u64>,
    others: Vec<u64>,
}

impl<'a> ScalarClasses<'a> {
    /// One pass over `scalars`, in parallel.
    pub fn of(scalars: &'a [Scalar]) -> ScalarClasses<'a> {
        let words = scalars.len().div_ceil(64);
        let mut classes = ScalarClasses {
            scalars,
            ones: vec![0; words],
            others: vec![0; words],
        };
        classes
            .ones
            .par_chunks_mut(CHUNK / 64)
            .zip(classes.others.par_chunks_mut(CHUNK / 64))
            .zip(scalars.par_chunks(CHUNK))
            .for_each(|((ones, others), chunk)| {
                for ((one, other), run) in ones.iter_mut().zip(others).zip(chunk.chunks(64)) {
                    for (b, scalar) in run.iter().enumerate() {
                        if *scalar == Scalar::ONE {
                            *one |= 1 << b;
                        } else if *scalar != Scalar::ZERO {
                            *other |= 1 << b;
                        }
                    }
                }
            });
        classes
    }

    /// The scalars these are the classes of.
    pub fn scalars(&self) -> &'a [Scalar] {
        self.scalars
    }

    /// Whether these are the classes of `scalars`: the same slice, start and length.
    fn describe(&self, scalars: &[Scalar]) -> bool {
        std::ptr::eq(self.scalars, scalars)
    }
}

/// The split scalars of one query vector of `len` points (the layout of `cuzk_msm_split_t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MsmSplit {
    /// Bit k is set when point k's scalar is one; `ceil(len / 64)` words, at least one.
    pub ones: Vec<u64>,
    /// The points of the scalars that are neither zero nor one, ascending.
    pub other_index: Vec<u32>,
    /// Their scalars, in the same order.
    pub other_scalars: Vec<Scalar>,
    /// The number of points.
    pub len: usize,
}

/// Why a split could not be made: the parts do not describe the query vector.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("a density bitmap has {words} words, too few for its {scalars} scalars")]
    ShortDensity { words: usize, scalars: usize },
    #[error("a part of {scalars} scalars came with the classes of other scalars")]
    ForeignClasses { scalars: usize },
    #[error("the scalars select {selected} points but the query vector has {len}")]
    LengthMismatch { selected: usize, len: usize },
    #[error("{len} points: more than the GPU's 32-bit indices allow")]
    TooLong { len: usize },
    #[error("a split of {len} points is malformed: {reason}")]
    Malformed { len: usize, reason: &'static str },
}

/// Scalars per parallel task, a multiple of 64 so that tasks start at bitmap word boundaries.
const CHUNK: usize = 1 << 14;

/// A part with its classes at hand.
#[derive(Clone, Copy)]
struct ClassedPart<'a> {
    scalars: &'a [Scalar],
    density: Option<&'a [u64]>,
    classes: &'a ScalarClasses<'a>,
}

/// One chunk of a part's scalars, and what the first pass learned of it.
struct ChunkSplit<'a> {
    part: ClassedPart<'a>,
    start: usize,
    end: usize,
    /// The point of the chunk's first selected scalar.
    first: usize,
    /// Its ones, as bits from `first`.
    ones: Vec<u64>,
    selected: usize,
    /// How many of its selected scalars are neither zero nor one.
    others: usize,
}

impl MsmSplit {
    /// Splits the scalars of a query vector of `len` points made of `parts`, in parallel.
    ///
    /// Two passes over the class bitmaps (made here for the parts that come without): the
    /// first finds each chunk's ones and counts its other scalars, so that the second writes
    /// the others straight to their place in the result, reading only their values.
    /// (Collecting them per chunk first held every other scalar twice at the peak, with a
    /// copy of each: 4.6 GB more for a dense witness of 127 M values, as WindowPoSt's.)
    pub fn build(len: usize, parts: &[ScalarPart<'_>]) -> Result<MsmSplit, SplitError> {
        if len > u32::MAX as usize {
            return Err(SplitError::TooLong { len });
        }
        for part in parts {
            if let Some(words) = part.density {
                if words.len() < part.scalars.len().div_ceil(64) {
                    return Err(SplitError::ShortDensity {
                        words: words.len(),
                        scalars: part.scalars.len(),
                    });
                }
            }
            if part.classes.is_some_and(|c| !c.describe(part.scalars)) {
                return Err(SplitError::ForeignClasses {
                    scalars: part.scalars.len(),
                });
            }
        }
        let classes: Vec<Cow<'_, ScalarClasses<'_>>> = parts
            .iter()
            .map(|p| {
                p.classes
                    .map_or_else(|| Cow::Owned(ScalarClasses::of(p.scalars)), Cow::Borrowed)
            })
            .collect();
        let parts: Vec<ClassedPart<'_>> = parts
            .iter()
            .zip(&classes)
            .map(|(p, c)| ClassedPart {
                scalars: p.scalars,
                density: p.density,
                classes: c,
            })
            .collect();
        // Each chunk's first point: the selected scalars before it.
        let mut tasks = Vec::new();
        let mut first = 0usize;
        for part in &parts {
            for start in (0..part.scalars.len()).step_by(CHUNK) {
                let end = (start + CHUNK).min(part.scalars.len());
                tasks.push((*part, start, end, first));
                first += selected_in(part.density, start, end);
            }
        }
        if first != len {
            return Err(SplitError::LengthMismatch {
                selected: first,
                len,
            });
        }
        let chunks: Vec<ChunkSplit<'_>> = tasks
            .into_par_iter()
            .map(|(part, start, end, first)| classify_chunk(part, start, end, first))
            .collect();

        let total: usize = chunks.iter().map(|c| c.others).sum();
        let mut split = MsmSplit {
            ones: vec![0; len.div_ceil(64).max(1)],
            other_index: vec![0; total],
            other_scalars: Vec::with_capacity(total),
            len,
        };
        // Filled by every thread: a dense witness has an "other" scalar almost everywhere,
        // which is gigabytes at 2^27, and one thread writing the zeros (and taking the page
        // faults) took seconds of the proof's preparation.
        split
            .other_scalars
            .par_extend(rayon::iter::repeat_n(Scalar::ZERO, total));
        let mut pieces = Vec::with_capacity(chunks.len());
        let (mut index_left, mut scalars_left) =
            (&mut split.other_index[..], &mut split.other_scalars[..]);
        for chunk in &chunks {
            let (i, i_rest) = index_left.split_at_mut(chunk.others);
            let (s, s_rest) = scalars_left.split_at_mut(chunk.others);
            pieces.push((chunk, i, s));
            (index_left, scalars_left) = (i_rest, s_rest);
        }
        pieces
            .into_par_iter()
            .for_each(|(chunk, i, s)| write_others(chunk, i, s));
        // The ones' bits (a word per 64 points, words shared by neighbouring chunks) are
        // merged in order.
        for chunk in &chunks {
            or_bits_at(&mut split.ones, chunk.first, &chunk.ones, chunk.selected);
        }
        Ok(split)
    }

    /// The number of scalars equal to one.
    pub fn ones_count(&self) -> usize {
        self.ones.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the fields describe `len` points as [`MsmSplit::build`] makes them: no one bit
    /// at or past `len`, the others' indices ascending below `len`, one scalar each. A split
    /// put together by hand that fails this would read points past the query vector.
    pub fn check(&self) -> Result<(), SplitError> {
        let malformed = |reason| {
            Err(SplitError::Malformed {
                len: self.len,
                reason,
            })
        };
        if self.ones.len().saturating_mul(64) < self.len {
            return malformed("its ones bitmap is shorter than its points");
        }
        // Word w's bits from len - 64 w on (all of them past the last point's word).
        let past_end = self
            .ones
            .iter()
            .enumerate()
            .skip(self.len / 64)
            .any(|(w, &word)| word >> self.len.saturating_sub(64 * w) != 0);
        if past_end {
            return malformed("a one bit lies past its points");
        }
        if self.other_index.len() != self.other_scalars.len() {
            return malformed("its others have not one scalar each");
        }
        if self.other_index.windows(2).any(|w| w[0] >= w[1]) {
            return malformed("its others' indices are not ascending");
        }
        if self
            .other_index
            .last()
            .is_some_and(|&k| k as usize >= self.len)
        {
            return malformed("an other's index lies past its points");
        }
        Ok(())
    }
}

/// The scalars of `start..end` (`start` a multiple of 64) that a density selects, a word at a
/// time: (word index, selected bits).
fn selection(
    density: Option<&[u64]>,
    start: usize,
    end: usize,
) -> impl Iterator<Item = (usize, u64)> + '_ {
    (start / 64..end.div_ceil(64)).map(move |w| {
        let bits = (end - w * 64).min(64);
        let valid = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        (w, density.map_or(valid, |d| d[w] & valid))
    })
}

fn selected_in(density: Option<&[u64]>, start: usize, end: usize) -> usize {
    selection(density, start, end)
        .map(|(_, sel)| sel.count_ones() as usize)
        .sum()
}

/// `COMPACT_NIBBLE[sel << 4 | bits]`: the bits of the nibble `bits` at the set positions of
/// the nibble `sel`, packed from bit 0.
const COMPACT_NIBBLE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let (sel, bits) = (i >> 4, i & 15);
        let (mut out, mut k, mut b) = (0u8, 0, 0);
        while b < 4 {
            if sel >> b & 1 == 1 {
                out |= ((bits >> b & 1) as u8) << k;
                k += 1;
            }
            b += 1;
        }
        table[i] = out;
        i += 1;
    }
    table
};

/// The bits of `bits` at the set positions of `sel`, packed from bit 0 (x86's PEXT), a nibble
/// at a time: sixteen lookups a word, where a loop over `sel`'s set bits took up to 64 steps
/// (and most of the splits' time for a density of every second value).
fn compact(bits: u64, sel: u64) -> u64 {
    if sel == u64::MAX {
        return bits;
    }
    let (mut out, mut at) = (0u64, 0);
    for nibble in 0..16 {
        let s = (sel >> (4 * nibble) & 15) as usize;
        if s == 0 {
            continue;
        }
        let b = (bits >> (4 * nibble) & 15) as usize;
        out |= u64::from(COMPACT_NIBBLE[s << 4 | b]) << at;
        at += s.count_ones();
    }
    out
}

/// The first pass over a chunk: its ones and the number of its others, from the bitmaps.
fn classify_chunk(part: ClassedPart<'_>, start: usize, end: usize, first: usize) -> ChunkSplit<'_> {
    let mut chunk = ChunkSplit {
        part,
        start,
        end,
        first,
        ones: vec![0; (end - start).div_ceil(64)],
        selected: 0,
        others: 0,
    };
    // The compacted ones are appended to `pending` (its `filled` low bits) and written out a
    // whole word at a time.
    let (mut pending, mut filled, mut out) = (0u64, 0u32, 0usize);
    for (w, sel) in selection(part.density, start, end) {
        let ones = compact(part.classes.ones[w] & sel, sel);
        let count = sel.count_ones();
        pending |= ones << filled; // ones has no bits at or above count
        if filled + count >= 64 {
            chunk.ones[out] = pending;
            out += 1;
            pending = if filled == 0 {
                0
            } else {
                ones >> (64 - filled)
            };
            filled = filled + count - 64;
        } else {
            filled += count;
        }
        chunk.selected += count as usize;
        chunk.others += (part.classes.others[w] & sel).count_ones() as usize;
    }
    if filled > 0 {
        chunk.ones[out] = pending;
    }
    chunk
}

/// The second pass over a chunk: its others' points and scalars, into their place.
fn write_others(chunk: &ChunkSplit<'_>, index: &mut [u32], scalars: &mut [Scalar]) {
    if chunk.others == 0 {
        return; // the common case for Filecoin's bit witnesses: nothing to read again
    }
    let part = chunk.part;
    let mut point = chunk.first; // the point of the word's first selected scalar
    let mut out = index.iter_mut().zip(scalars.iter_mut());
    for (w, sel) in selection(part.density, chunk.start, chunk.end) {
        let mut others = part.classes.others[w] & sel;
        while others != 0 {
            let b = others.trailing_zeros();
            let (i, s) = out
                .next()
                .expect("as many places as the first pass counted");
            *i = (point + (sel & ((1u64 << b) - 1)).count_ones() as usize) as u32;
            *s = part.scalars[w * 64 + b as usize];
            others &= others - 1;
        }
        point += sel.count_ones() as usize;
    }
}

/// ORs `count` bits of `src` into `dst` starting at bit `at`.
fn or_bits_at(dst: &mut [u64], at: usize, src: &[u64], count: usize) {
    let (word, shift) = (at / 64, at % 64);
    for (j, &w) in src.iter().enumerate().take(count.div_ceil(64)) {
        if w == 0 {
            continue;
        }
        dst[word + j] |= w << shift;
        if shift != 0 && word + j + 1 < dst.len() {
            dst[word + j + 1] |= w >> (64 - shift);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// The split the slow way: walk every scalar in order.
    fn reference(parts: &[ScalarPart<'_>]) -> (Vec<Scalar>, MsmSplit) {
        let mut selected = Vec::new();
        for part in parts {
            for (i, s) in part.scalars.iter().enumerate() {
                if part.density.is_none_or(|w| w[i / 64] >> (i % 64) & 1 == 1) {
                    selected.push(*s);
                }
            }
        }
        let mut split = MsmSplit {
            ones: vec![0; selected.len().div_ceil(64).max(1)],
            len: selected.len(),
            ..MsmSplit::default()
        };
        for (k, s) in selected.iter().enumerate() {
            if *s == Scalar::ONE {
                split.ones[k / 64] |= 1 << (k % 64);
            } else if !bool::from(s.is_zero()) {
                split.other_index.push(k as u32);
                split.other_scalars.push(*s);
            }
        }
        (selected, split)
    }

    fn scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
        (0..n)
            .map(|_| match rng.gen_range(0..4) {
                0 => Scalar::ZERO,
                1 | 2 => Scalar::ONE,
                _ => Scalar::random(&mut *rng),
            })
            .collect()
    }

    fn density(rng: &mut ChaCha20Rng, n: usize) -> Vec<u64> {
        let mut w: Vec<u64> = (0..n.div_ceil(64)).map(|_| rng.gen()).collect();
        if !n.is_multiple_of(64) {
            // Bits past the end are set too: they must be ignored.
            let last = w.len() - 1;
            w[last] |= !0 << (n % 64);
        }
        w
    }

    #[test]
    fn matches_a_sequential_walk() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        // Sizes around the chunk and word boundaries, with and without densities.
        for (n_in, n_aux) in [
            (0, 0),
            (1, 0),
            (3, 70),
            (65, CHUNK + 3),
            (CHUNK, 2 * CHUNK + 63),
        ] {
            let inputs = scalars(&mut rng, n_in);
            let aux = scalars(&mut rng, n_aux);
            let d_in = density(&mut rng, n_in);
            let d_aux = density(&mut rng, n_aux);
            for parts in [
                vec![ScalarPart {
                    scalars: &aux,
                    density: None,
                    classes: None,
                }],
                vec![
                    ScalarPart {
                        scalars: &inputs,
                        density: None,
                        classes: None,
                    },
                    ScalarPart {
                        scalars: &aux,
                        density: Some(&d_aux),
                        classes: None,
                    },
                ],
                vec![
                    ScalarPart {
                        scalars: &inputs,
                        density: Some(&d_in),
                        classes: None,
                    },
                    ScalarPart {
                        scalars: &aux,
                        density: Some(&d_aux),
                        classes: None,
                    },
                ],
            ] {
                let (selected, expected) = reference(&parts);
                let split = MsmSplit::build(selected.len(), &parts).unwrap();
                assert_eq!(split, expected, "inputs {n_in}, aux {n_aux}");
                assert_eq!(split.check(), Ok(()));
                assert_eq!(
                    split.ones_count()
                        + split.other_index.len()
                        + selected.iter().filter(|s| bool::from(s.is_zero())).count(),
                    selected.len()
                );
                // The same with the classes made once and given, as the prover does for the
                // aux values that L, A and B share.
                let classes: Vec<ScalarClasses> =
                    parts.iter().map(|p| ScalarClasses::of(p.scalars)).collect();
                let given: Vec<ScalarPart<'_>> = parts
                    .iter()
                    .zip(&classes)
                    .map(|(p, c)| ScalarPart {
                        classes: Some(c),
                        ..*p
                    })
                    .collect();
                assert_eq!(
                    MsmSplit::build(selected.len(), &given).unwrap(),
                    expected,
                    "classes given: inputs {n_in}, aux {n_aux}"
                );
            }
        }
    }

    #[test]
    fn check_refuses_splits_that_point_past_their_points() {
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        let v = scalars(&mut rng, 130);
        let good = build_whole(130, &v, None).unwrap();
        assert!(
            good.other_index.len() >= 2,
            "the seed gives others to reorder"
        );
        let reason = |split: MsmSplit| match split.check() {
            Err(SplitError::Malformed { len: 130, reason }) => reason,
            other => panic!("not refused: {other:?}"),
        };
        let mut bad = good.clone();
        bad.ones[2] |= 1 << 2; // point 130
        assert!(reason(bad).contains("one bit"));
        let mut bad = good.clone();
        bad.ones.push(1);
        assert!(reason(bad).contains("one bit"));
        let mut bad = good.clone();
        bad.ones.truncate(2);
        assert!(reason(bad).contains("shorter"));
        let mut bad = good.clone();
        bad.other_scalars.pop();
        assert!(reason(bad).contains("one scalar each"));
        let mut bad = good.clone();
        bad.other_index.swap(0, 1);
        assert!(reason(bad).contains("ascending"));
        let mut bad = good.clone();
        *bad.other_index.last_mut().unwrap() = 130;
        assert!(reason(bad).contains("past its points"));
        assert_eq!(good.check(), Ok(()));
    }

    #[test]
    fn classes_and_compaction_match_the_definitions() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let v = scalars(&mut rng, 3 * 64 + 5);
        let c = ScalarClasses::of(&v);
        assert_eq!(c.ones.len(), 4);
        for (i, s) in v.iter().enumerate() {
            let (one, other) = (
                c.ones[i / 64] >> (i % 64) & 1,
                c.others[i / 64] >> (i % 64) & 1,
            );
            assert_eq!(one == 1, *s == Scalar::ONE, "scalar {i}");
            assert_eq!(
                other == 1,
                *s != Scalar::ONE && *s != Scalar::ZERO,
                "scalar {i}"
            );
        }
        assert_eq!((c.ones[3] | c.others[3]) >> 5, 0, "no bits past the end");
        for _ in 0..1000 {
            let (bits, sel): (u64, u64) = (rng.gen(), rng.gen::<u64>() & rng.gen::<u64>());
            let mut want = 0u64;
            for (k, b) in (0..64).filter(|b| sel >> b & 1 == 1).enumerate() {
                want |= (bits >> b & 1) << k;
            }
            assert_eq!(compact(bits, sel), want, "bits {bits:x} sel {sel:x}");
        }
        assert_eq!(compact(0xdead_beef, u64::MAX), 0xdead_beef);
    }

    /// `build` of one part, `scalars` whole, with the classes given.
    fn build_whole(
        len: usize,
        scalars: &[Scalar],
        classes: Option<&ScalarClasses<'_>>,
    ) -> Result<MsmSplit, SplitError> {
        MsmSplit::build(
            len,
            &[ScalarPart {
                scalars,
                density: None,
                classes,
            }],
        )
    }

    #[test]
    fn rejects_parts_that_do_not_fit() {
        let s = vec![Scalar::ONE; 100];
        let short = vec![u64::MAX];
        assert_eq!(
            MsmSplit::build(
                100,
                &[ScalarPart {
                    scalars: &s,
                    density: Some(&short),
                    classes: None,
                }]
            ),
            Err(SplitError::ShortDensity {
                words: 1,
                scalars: 100
            })
        );
        assert_eq!(
            build_whole(99, &s, None),
            Err(SplitError::LengthMismatch {
                selected: 100,
                len: 99
            })
        );
        // Classes of other values: a shorter slice, and one of the same length elsewhere.
        let short_classes = ScalarClasses::of(&s[..64]);
        assert_eq!(
            build_whole(100, &s, Some(&short_classes)),
            Err(SplitError::ForeignClasses { scalars: 100 })
        );
        let copy = s.clone();
        let copy_classes = ScalarClasses::of(&copy);
        assert_eq!(
            build_whole(100, &s, Some(&copy_classes)),
            Err(SplitError::ForeignClasses { scalars: 100 })
        );
    }
}
