//! bellperson-lite: Groth16 over BLS12-381, byte-compatible with bellperson 0.27.
//!
//! For the same circuit, parameters and randomness `(r, s)` this crate's proofs are the same
//! bytes as bellperson's, and the parameter files are interchangeable. It is the CPU backend
//! of cuzk and the reference that the GPU backend is checked against.
//!
//! # Layout
//!
//! - [`params`]: `Parameters` / `VerifyingKey` and the bellperson file format (streamed,
//!   memory-mapped).
//! - [`proof`]: the 192-byte proof encoding.
//! - [`synthesis`]: `ProvingAssignment`, the constraint system a circuit is run into.
//! - [`matrices`]: the same assignment from constraint matrices recorded once per circuit
//!   shape, a witness-only synthesis and three sparse products (much less work per proof).
//! - [`domain`]: radix-2 NTTs over the scalar field.
//! - [`msm`]: multi-scalar multiplication with the zero / one / other split.
//! - [`query_splits`]: a witness's splits for the L, A and B queries, each value classified
//!   once (B's split serves its G1 and G2 MSMs).
//! - [`prover`]: H = (A*B - C)/Z, the MSMs and the proof assembly (the CPU backend).
//! - `gpu` (feature `cuda`): the GPU backend, with the same contract and the same proof bytes.
//! - [`placement`]: where a GPU proof's B_G2 sum runs (CPU or GPU) and where its scalars are
//!   split (host or GPU), decided per circuit.
//! - [`release`]: a proof's large buffers freed on a thread of their own.
//! - [`verifier`]: prepared verifying key and proof verification.
//! - [`generator`]: parameter generation, and the benchmark-only [`generator::BenchmarkSrs`].
//! - [`circuits`]: the `sha` and `mix` test circuits shared by tests and benchmarks.
//! - [`error`]: the typed errors.

pub mod circuits;
pub mod density;
pub mod domain;
pub mod error;
pub mod generator;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod matrices;
pub mod msm;
pub mod params;
pub mod placement;
pub mod proof;
pub mod prover;
pub mod query_splits;
pub mod release;
pub mod synthesis;
pub mod verifier;

pub use blstrs::{Bls12, G1Affine, G2Affine, Scalar};
pub use error::{ParamsError, ProverError, VerifyError};
pub use params::{Parameters, ProvingKey, VerifyingKey};
pub use proof::Proof;
