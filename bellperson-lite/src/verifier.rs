//! Groth16 verification.
//!
//! A proof `(A, B, C)` for public inputs `x` is valid when
//! `e(A, B) = e(alpha, beta) * e(sum_i x_i ic_i, gamma) * e(C, delta)`. The prepared key holds
//! `e(alpha, beta)` and the negated, Miller-loop-ready `gamma` and `delta`, so a check is one
//! multi-Miller loop over three pairs and one final exponentiation.

use blstrs::{Bls12, G1Affine, G1Projective, G2Prepared, Gt, Scalar};
use group::Curve;
use pairing::{MillerLoopResult, MultiMillerLoop};

use crate::error::VerifyError;
use crate::msm::msm_g1;
use crate::params::VerifyingKey;
use crate::proof::Proof;

/// A verifying key with the pairing work that does not depend on the proof done once.
#[derive(Clone, Debug)]
pub struct PreparedVerifyingKey {
    /// `e(alpha_g1, beta_g2)`.
    alpha_g1_beta_g2: Gt,
    /// `-gamma_g2`, prepared for the Miller loop.
    neg_gamma_g2: G2Prepared,
    /// `-delta_g2`, prepared for the Miller loop.
    neg_delta_g2: G2Prepared,
    /// The public-input bases; `ic[0]` goes with the constant one.
    ic: Vec<G1Affine>,
}

impl PreparedVerifyingKey {
    /// Number of public inputs a proof must come with (not counting the constant one).
    pub fn num_public_inputs(&self) -> usize {
        self.ic.len().saturating_sub(1)
    }
}

/// Does the proof-independent part of verification once.
pub fn prepare_verifying_key(vk: &VerifyingKey) -> PreparedVerifyingKey {
    PreparedVerifyingKey {
        alpha_g1_beta_g2: <Bls12 as pairing::Engine>::pairing(&vk.alpha_g1, &vk.beta_g2),
        neg_gamma_g2: G2Prepared::from(-vk.gamma_g2),
        neg_delta_g2: G2Prepared::from(-vk.delta_g2),
        ic: vk.ic.clone(),
    }
}

/// Checks `proof` against `public_inputs`. `Ok(false)` is a well-formed proof that does not
/// verify; an error means the inputs cannot even be checked (wrong number of them).
pub fn verify_proof(
    pvk: &PreparedVerifyingKey,
    proof: &Proof,
    public_inputs: &[Scalar],
) -> Result<bool, VerifyError> {
    if public_inputs.len() + 1 != pvk.ic.len() {
        return Err(VerifyError::InputCount {
            expected: pvk.num_public_inputs(),
            actual: public_inputs.len(),
        });
    }
    // One multi-scalar multiplication rather than a scalar multiplication per input: a
    // WindowPoSt partition has 25,840 inputs, which one by one took 2.8 s of its self-check
    // on the H200 machine.
    let acc = (G1Projective::from(pvk.ic[0])
        + msm_g1(&pvk.ic[1..], public_inputs, None).map_err(VerifyError::InputSum)?)
    .to_affine();
    let b = G2Prepared::from(proof.b);
    let lhs = Bls12::multi_miller_loop(&[
        (&proof.a, &b),
        (&acc, &pvk.neg_gamma_g2),
        (&proof.c, &pvk.neg_delta_g2),
    ])
    .final_exponentiation();
    Ok(lhs == pvk.alpha_g1_beta_g2)
}
