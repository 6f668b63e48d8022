//! The splits of a witness's scalars for the L, A and B queries (zeros dropped, ones summed
//! by additions, the rest by Pippenger: see [`supraseal_c2::split`]), with each value
//! classified once. A witness's aux values feed all three queries, and B's split serves both
//! of its MSMs (G1 and G2), so the values are read once for classes and then only where they
//! are neither zero nor one. Used by the CPU prover and by the GPU backend's host splits.

use blstrs::Scalar;
use supraseal_c2::split::{MsmSplit, ScalarClasses, ScalarPart};

use crate::density::Density;
use crate::error::ProverError;

/// A witness's inputs and aux values with their classes, from which each query's split is
/// made on demand (so that a caller short of memory holds one split at a time).
pub struct WitnessClasses<'a> {
    inputs: ScalarClasses<'a>,
    aux: ScalarClasses<'a>,
}

impl<'a> WitnessClasses<'a> {
    /// One parallel pass over the inputs and one over the aux values.
    pub fn of(inputs: &'a [Scalar], aux: &'a [Scalar]) -> WitnessClasses<'a> {
        let (inputs, aux) = rayon::join(|| ScalarClasses::of(inputs), || ScalarClasses::of(aux));
        WitnessClasses { inputs, aux }
    }

    /// L's split: every aux value, one point each (`len` points in L's query).
    pub fn l(&self, len: usize) -> Result<MsmSplit, ProverError> {
        Ok(MsmSplit::build(len, &[part(&self.aux, None)])?)
    }

    /// A's split: every input, then the aux values A's density selects.
    pub fn a(&self, len: usize, a_aux_density: &Density) -> Result<MsmSplit, ProverError> {
        Ok(MsmSplit::build(
            len,
            &[
                part(&self.inputs, None),
                part(&self.aux, Some(a_aux_density)),
            ],
        )?)
    }

    /// B's split (for its G1 and its G2 query, which have the same points in the same order):
    /// the inputs and the aux values B's two densities select.
    pub fn b(
        &self,
        len: usize,
        b_input_density: &Density,
        b_aux_density: &Density,
    ) -> Result<MsmSplit, ProverError> {
        Ok(MsmSplit::build(
            len,
            &[
                part(&self.inputs, Some(b_input_density)),
                part(&self.aux, Some(b_aux_density)),
            ],
        )?)
    }
}

/// A part of a query: the scalars `classes` describes, all of them or those `density` selects.
fn part<'b>(classes: &'b ScalarClasses<'b>, density: Option<&'b Density>) -> ScalarPart<'b> {
    ScalarPart {
        scalars: classes.scalars(),
        density: density.map(Density::words),
        classes: Some(classes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use supraseal_c2::split::SplitError;

    fn values(r: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
        (0..n)
            .map(|_| match r.gen_range(0..4) {
                0 => Scalar::ZERO,
                1 | 2 => Scalar::ONE,
                _ => Scalar::random(&mut *r),
            })
            .collect()
    }

    fn density(r: &mut ChaCha8Rng, n: usize) -> Density {
        let mut d = Density::new();
        (0..n).for_each(|_| d.push(r.gen_bool(0.7)));
        d
    }

    fn build(len: usize, parts: &[(&[Scalar], Option<&Density>)]) -> MsmSplit {
        let parts: Vec<ScalarPart<'_>> = parts
            .iter()
            .map(|&(scalars, d)| ScalarPart {
                scalars,
                density: d.map(Density::words),
                classes: None,
            })
            .collect();
        MsmSplit::build(len, &parts).unwrap()
    }

    /// The splits from shared classes are the ones each query's own split gives, and a query
    /// of the wrong length is refused rather than split.
    #[test]
    fn splits_from_shared_classes_match_separate_ones() {
        let mut r = ChaCha8Rng::seed_from_u64(31);
        let (inputs, aux) = (values(&mut r, 3), values(&mut r, 40_000));
        let (a_aux, b_in, b_aux) = (
            density(&mut r, aux.len()),
            density(&mut r, inputs.len()),
            density(&mut r, aux.len()),
        );
        let classes = WitnessClasses::of(&inputs, &aux);
        let a_len = inputs.len() + a_aux.count_ones();
        let b_len = b_in.count_ones() + b_aux.count_ones();
        assert_eq!(
            classes.l(aux.len()).unwrap(),
            build(aux.len(), &[(&aux, None)])
        );
        assert_eq!(
            classes.a(a_len, &a_aux).unwrap(),
            build(a_len, &[(&inputs, None), (&aux, Some(&a_aux))])
        );
        assert_eq!(
            classes.b(b_len, &b_in, &b_aux).unwrap(),
            build(b_len, &[(&inputs, Some(&b_in)), (&aux, Some(&b_aux))])
        );
        assert!(matches!(
            classes.b(b_len + 1, &b_in, &b_aux),
            Err(ProverError::Split(SplitError::LengthMismatch { .. }))
        ));
    }
}
