//! A benchmark-only SRS: valid curve points of the right counts, not from any setup.
//!
//! Real parameter generation at 2^24 constraints and beyond takes minutes; a timing run only
//! needs points on the curve in the right numbers. These are made from two random points
//! `P, Q` as `P + i Q` (one addition each, chunks started by a scalar multiplication) and
//! normalised in batches. Proofs made with them do not verify, and [`BenchmarkSrs`] has no
//! verifying key, so they cannot be mistaken for real parameters: it implements
//! [`ProvingKey`] and nothing else.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::{Curve, Group};
use rand_core::RngCore;
use rayon::prelude::*;

use crate::domain::EvaluationDomain;
use crate::error::ProverError;
use crate::params::ProvingKey;
use crate::synthesis::ProvingAssignment;

/// The sizes that fix a circuit's parameter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CircuitShape {
    /// Constraints including the one per public input (what the domain must hold).
    pub num_constraints: usize,
    /// Public inputs including the constant one.
    pub num_inputs: usize,
    pub num_aux: usize,
    /// Auxiliary variables used in A.
    pub a_aux_ones: usize,
    /// Inputs used in B.
    pub b_input_ones: usize,
    /// Auxiliary variables used in B.
    pub b_aux_ones: usize,
}

impl CircuitShape {
    pub fn of(assignment: &ProvingAssignment) -> Self {
        Self {
            num_constraints: assignment.num_constraints(),
            num_inputs: assignment.input_assignment.len(),
            num_aux: assignment.aux_assignment.len(),
            a_aux_ones: assignment.a_aux_density.count_ones(),
            b_input_ones: assignment.b_input_density.count_ones(),
            b_aux_ones: assignment.b_aux_density.count_ones(),
        }
    }
}

/// Proving parameters of the right shape made of arbitrary curve points. For timing only.
pub struct BenchmarkSrs {
    alpha_g1: G1Affine,
    beta_g1: G1Affine,
    beta_g2: G2Affine,
    delta_g1: G1Affine,
    delta_g2: G2Affine,
    num_inputs: usize,
    h: Vec<G1Affine>,
    l: Vec<G1Affine>,
    a: Vec<G1Affine>,
    b_g1: Vec<G1Affine>,
    b_g2: Vec<G2Affine>,
}

/// `count` distinct points `start + i * step`, in affine form.
fn point_run<G>(start: G, step: G, count: usize) -> Vec<G::AffineRepr>
where
    G: Curve + Send + Sync + std::ops::Mul<Scalar, Output = G>,
    G::AffineRepr: Copy + Send + Sync,
{
    const CHUNK: usize = 4096;
    let mut out = vec![G::identity().to_affine(); count];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(chunk, out)| {
            let mut p = start + step * Scalar::from((chunk * CHUNK) as u64);
            let mut projective = Vec::with_capacity(out.len());
            for _ in 0..out.len() {
                projective.push(p);
                p += step;
            }
            G::batch_normalize(&projective, out);
        });
    out
}

impl BenchmarkSrs {
    /// Points for a circuit of the given shape.
    pub fn new<R: RngCore>(shape: CircuitShape, rng: &mut R) -> Result<Self, ProverError> {
        let domain = EvaluationDomain::new(shape.num_constraints)?;
        let mut g1 = || G1Projective::random(&mut *rng);
        let (p1, q1) = (g1(), g1());
        let (alpha_g1, beta_g1, delta_g1) = (g1().to_affine(), g1().to_affine(), g1().to_affine());
        let mut g2 = || G2Projective::random(&mut *rng);
        let (p2, q2) = (g2(), g2());
        let (beta_g2, delta_g2) = (g2().to_affine(), g2().to_affine());

        // One long run of G1 points, sliced into the queries: different queries then never
        // share a point.
        let h_len = domain.size() - 1;
        let a_len = shape.num_inputs + shape.a_aux_ones;
        let b_len = shape.b_input_ones + shape.b_aux_ones;
        let mut g1_points = point_run(p1, q1, h_len + shape.num_aux + a_len + b_len);
        let b_g1 = g1_points.split_off(h_len + shape.num_aux + a_len);
        let a = g1_points.split_off(h_len + shape.num_aux);
        let l = g1_points.split_off(h_len);
        Ok(Self {
            alpha_g1,
            beta_g1,
            beta_g2,
            delta_g1,
            delta_g2,
            num_inputs: shape.num_inputs,
            h: g1_points,
            l,
            a,
            b_g1,
            b_g2: point_run(p2, q2, b_len),
        })
    }

    /// Bytes of point data held, for reports.
    pub fn size_bytes(&self) -> usize {
        (self.h.len() + self.l.len() + self.a.len() + self.b_g1.len()) * 96 + self.b_g2.len() * 192
    }
}

impl ProvingKey for BenchmarkSrs {
    fn alpha_g1(&self) -> &G1Affine {
        &self.alpha_g1
    }
    fn beta_g1(&self) -> &G1Affine {
        &self.beta_g1
    }
    fn beta_g2(&self) -> &G2Affine {
        &self.beta_g2
    }
    fn delta_g1(&self) -> &G1Affine {
        &self.delta_g1
    }
    fn delta_g2(&self) -> &G2Affine {
        &self.delta_g2
    }
    fn num_inputs(&self) -> usize {
        self.num_inputs
    }
    fn h(&self) -> &[G1Affine] {
        &self.h
    }
    fn l(&self) -> &[G1Affine] {
        &self.l
    }
    fn a(&self) -> &[G1Affine] {
        &self.a
    }
    fn b_g1(&self) -> &[G1Affine] {
        &self.b_g1
    }
    fn b_g2(&self) -> &[G2Affine] {
        &self.b_g2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::MixCircuit;
    use crate::prover::prove_from_assignments;
    use crate::synthesis::synthesize_circuit;
    use ff::Field;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn has_the_shape_of_the_circuit_and_proves() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let assignment = synthesize_circuit(MixCircuit::new(9, 0.9, 5)).unwrap();
        let srs = BenchmarkSrs::new(CircuitShape::of(&assignment), &mut rng).unwrap();
        assert_eq!(srs.h().len(), (1 << 9) - 1);
        assert_eq!(srs.l().len(), assignment.aux_assignment.len());
        // Distinct, valid points.
        assert_ne!(srs.h()[0], srs.h()[1]);
        assert!(srs.b_g2().iter().all(|p| bool::from(p.is_on_curve())));
        let r = Scalar::random(&mut rng);
        let proofs = prove_from_assignments(vec![assignment], &srs, &[r], &[r]).unwrap();
        assert_eq!(proofs.len(), 1);
    }
}
