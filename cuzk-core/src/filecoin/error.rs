//! Why a Filecoin proof request was refused or its parameters could not be made.

use std::path::PathBuf;

/// A Filecoin request that can never succeed as sent, or a parameter generation that failed.
/// Every variant names the field or file at fault.
#[derive(Debug, thiserror::Error)]
pub enum FilecoinError {
    /// `registered_proof` is not a value of the enum filecoin-proofs defines for this kind.
    #[error("registered_proof {value} is not a known {family} proof (known: 0..={last})")]
    UnknownRegisteredProof {
        family: &'static str,
        value: u64,
        last: u64,
    },
    /// The registered proof exists, but this kind does not prove it (e.g. a WindowPoSt proof
    /// type in a WinningPoSt request) or cuzk does not support it.
    #[error("{proof}: {reason}")]
    Unsupported { proof: String, reason: String },
    /// `sector_size` disagrees with the registered proof.
    #[error("sector_size {given} does not match {proof}, which is for {expected}-byte sectors")]
    SectorSize {
        given: u64,
        expected: u64,
        proof: String,
    },
    /// A sector size that no Filecoin proof uses.
    #[error("sector size {0} is not one of Filecoin's (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)")]
    UnknownSectorSize(u64),
    /// Bytes that do not decode as the type the wire contract names.
    #[error("{what} is malformed ({len} bytes): {reason}")]
    Malformed {
        what: String,
        len: usize,
        reason: String,
    },
    /// A fixed-size field of the wrong length.
    #[error("{what} must be {expected} bytes, not {actual}")]
    Length {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    /// A list with the wrong number of entries.
    #[error("{what}: expected {expected}, got {actual}")]
    Count {
        what: String,
        expected: String,
        actual: usize,
    },
    /// Well-formed inputs that contradict each other or the rules of the proof.
    #[error("{what}: {reason}")]
    Invalid { what: &'static str, reason: String },
    /// The vanilla proofs do not prove what the request claims: a Groth16 proof of them
    /// could not verify.
    #[error("the vanilla proofs do not verify against the request's public inputs: {0}")]
    VanillaProof(String),
    /// filecoin-proofs refused to build a circuit from inputs that passed every check above.
    #[error("building the {kind} circuit of partition {partition} failed: {reason}")]
    Circuit {
        kind: &'static str,
        partition: usize,
        reason: String,
    },
    /// Generating parameters for a production sector size without `force`.
    #[error(
        "{sector_size}-byte sectors are a production size: use the published parameters \
         (or force generation for a private network)"
    )]
    ProductionSize { sector_size: u64 },
    /// Parameter generation failed.
    #[error("generating the parameters of {circuit_id}: {reason}")]
    Generate { circuit_id: String, reason: String },
    /// filecoin-proofs failed to seal a test sector (`sealing`).
    #[error("sealing a test sector: {step}: {reason}")]
    Sealing { step: &'static str, reason: String },
    /// A synthetic sector (`synthetic`) could not be made as asked.
    #[error("synthetic sector: {reason}")]
    Synthetic { reason: String },
    /// The native witness (`witness`) could not be computed from the vanilla proofs.
    #[error("native witness: {0}")]
    NativeWitness(#[from] super::witness::PoStWitnessError),
    /// The same for PoRep.
    #[error("native witness: {0}")]
    NativePoRepWitness(#[from] super::witness::PoRepWitnessError),
    /// The same for SnapDeals.
    #[error("native witness: {0}")]
    NativeSnapWitness(#[from] super::witness::SnapWitnessError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl FilecoinError {
    pub(crate) fn malformed(what: impl Into<String>, bytes: &[u8], reason: impl ToString) -> Self {
        FilecoinError::Malformed {
            what: what.into(),
            len: bytes.len(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn invalid(what: &'static str, reason: impl ToString) -> Self {
        FilecoinError::Invalid {
            what,
            reason: reason.to_string(),
        }
    }
}
