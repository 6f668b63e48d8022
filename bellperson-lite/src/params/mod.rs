//! Groth16 parameters (the SRS) and the verifying key, in the file format that bellperson and
//! Filecoin's `.params` / `.vk` files use.
//!
//! Layout of a parameter file (all points uncompressed, all counts big-endian `u32`):
//!
//! ```text
//! verifying key: alpha_g1 (G1), beta_g1 (G1), beta_g2 (G2), gamma_g2 (G2), delta_g1 (G1),
//!                delta_g2 (G2), count, ic[count] (G1)
//! h:             count, points (G1)
//! l:             count, points (G1)
//! a:             count, points (G1)
//! b_g1:          count, points (G1)
//! b_g2:          count, points (G2)
//! ```
//!
//! G1 points take 96 bytes and G2 points 192.
//! No point in the query sections may be the point at infinity: the generator leaves those
//! out, so one in a file means the file is corrupt.

mod io;
mod mmap;

pub use self::io::{
    read_parameters, read_parameters_file, read_verifying_key, write_parameters,
    write_verifying_key, ParametersWriter,
};
pub use self::mmap::{read_parameters_mmap, read_parameters_mmap_file};

use blstrs::{G1Affine, G2Affine};

/// Size in bytes of an uncompressed G1 point.
pub const G1_UNCOMPRESSED_BYTES: usize = 96;
/// Size in bytes of an uncompressed G2 point.
pub const G2_UNCOMPRESSED_BYTES: usize = 192;

/// The verifying key: what a verifier needs, and the head of every parameter file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// `alpha` in G1: pairs with `beta_g2` in the verification equation.
    pub alpha_g1: G1Affine,
    /// `beta` in G1: used by the prover to build B's G1 twin (needed for C).
    pub beta_g1: G1Affine,
    /// `beta` in G2.
    pub beta_g2: G2Affine,
    /// `gamma` in G2: pairs with the public-input combination of `ic`.
    pub gamma_g2: G2Affine,
    /// `delta` in G1: the prover's blinding `r * delta` / `s * delta` of A and C.
    pub delta_g1: G1Affine,
    /// `delta` in G2: pairs with C.
    pub delta_g2: G2Affine,
    /// `(beta * u_i(tau) + alpha * v_i(tau) + w_i(tau)) / gamma` in G1 for each public input
    /// (index 0 is the constant one).
    pub ic: Vec<G1Affine>,
}

/// The full proving parameters of one circuit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameters {
    pub vk: VerifyingKey,
    /// `tau^i * t(tau) / delta` for `i` in `0..n-1`, where `n` is the domain size.
    pub h: Vec<G1Affine>,
    /// `(beta * u_i(tau) + alpha * v_i(tau) + w_i(tau)) / delta` for each auxiliary variable.
    pub l: Vec<G1Affine>,
    /// `u_i(tau)` in G1: every input, then the auxiliary variables whose A polynomial is not zero.
    pub a: Vec<G1Affine>,
    /// `v_i(tau)` in G1, for the inputs and then the auxiliary variables whose B polynomial is not zero.
    pub b_g1: Vec<G1Affine>,
    /// `v_i(tau)` in G2, same selection as `b_g1`.
    pub b_g2: Vec<G2Affine>,
}

/// What a prover reads from a proving key. Implemented by [`Parameters`] (real, verifiable
/// parameters) and by [`crate::generator::BenchmarkSrs`] (random points for timing runs, whose
/// proofs never verify and which deliberately has no verifying key).
pub trait ProvingKey: Sync {
    fn alpha_g1(&self) -> &G1Affine;
    fn beta_g1(&self) -> &G1Affine;
    fn beta_g2(&self) -> &G2Affine;
    fn delta_g1(&self) -> &G1Affine;
    fn delta_g2(&self) -> &G2Affine;
    /// Number of public inputs (including the constant one) the key was made for.
    fn num_inputs(&self) -> usize;
    fn h(&self) -> &[G1Affine];
    fn l(&self) -> &[G1Affine];
    fn a(&self) -> &[G1Affine];
    fn b_g1(&self) -> &[G1Affine];
    fn b_g2(&self) -> &[G2Affine];
}

impl ProvingKey for Parameters {
    fn alpha_g1(&self) -> &G1Affine {
        &self.vk.alpha_g1
    }
    fn beta_g1(&self) -> &G1Affine {
        &self.vk.beta_g1
    }
    fn beta_g2(&self) -> &G2Affine {
        &self.vk.beta_g2
    }
    fn delta_g1(&self) -> &G1Affine {
        &self.vk.delta_g1
    }
    fn delta_g2(&self) -> &G2Affine {
        &self.vk.delta_g2
    }
    fn num_inputs(&self) -> usize {
        self.vk.ic.len()
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
