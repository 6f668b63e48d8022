//! Error types. Every failure a caller can cause (bad files, mismatched parameters, an
//! unsatisfied circuit) is a typed variant with a message that says what to fix.

use std::path::PathBuf;

/// Why a parameter or verifying-key file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParamsError {
    #[error("cannot read parameter file {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("parameter data ends early in section `{section}`: needed {needed} bytes at offset {offset}, only {available} left (truncated file?)")]
    Truncated {
        section: &'static str,
        offset: u64,
        needed: u64,
        available: u64,
    },
    #[error("section `{section}`, point {index} at offset {offset}: {reason} (corrupt file?)")]
    InvalidPoint {
        section: &'static str,
        index: usize,
        offset: u64,
        reason: PointError,
    },
    #[error("{count} unexpected bytes after the last section at offset {offset}")]
    TrailingBytes { offset: u64, count: u64 },
    #[error("i/o error in section `{section}`: {source}")]
    Io {
        section: &'static str,
        #[source]
        source: std::io::Error,
    },
}

/// Why a single encoded curve point was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    #[error("not a valid encoding of a point on the curve")]
    NotOnCurve,
    #[error("point is not in the prime-order subgroup")]
    NotInSubgroup,
    #[error("point at infinity is not allowed here")]
    Infinity,
}

/// Why a proof could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProverError {
    #[error("circuit synthesis failed: {0}")]
    Synthesis(#[from] bellpepper_core::SynthesisError),
    #[error("constraint matrices: {0}")]
    Matrices(#[from] crate::matrices::MatrixError),
    #[error("the circuit is not satisfied: constraint {index} (of {total}) has a*b != c")]
    Unsatisfied { index: usize, total: usize },
    #[error("parameters do not fit this circuit: {what} has {actual} entries, the circuit needs {expected} (parameters for another circuit?)")]
    ParamsMismatch {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    #[error("{what}: got {actual} values, expected {expected}")]
    LengthMismatch {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    #[error("circuit needs a domain of 2^{log_size}, larger than the scalar field's 2^32 roots of unity")]
    DomainTooLarge { log_size: u32 },
    #[error("all circuits of a batch must have the same shape: circuit {index} differs in {what}")]
    ShapeMismatch { index: usize, what: &'static str },
    #[error("GPU prover failed: {0}")]
    Gpu(#[from] supraseal_c2::CudaError),
    #[error("splitting the scalars into zeros, ones and others: {0}")]
    Split(#[from] supraseal_c2::split::SplitError),
    #[error("placing B's G2 sum: {0}")]
    G2Placement(String),
    #[error("the CPU half of a GPU proof (B in G2) panicked: {0}")]
    WorkerPanicked(String),
    /// Writing generated parameters (`SetupScalars::write_parameters`) failed.
    #[error("writing the parameter file: {0}")]
    WriteParameters(#[source] std::io::Error),
}

/// Why a proof or verifying key could not be decoded, or a proof was rejected.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("proof encoding is invalid: {0}")]
    MalformedProof(String),
    #[error("expected {expected} public inputs for this verifying key, got {actual}")]
    InputCount { expected: usize, actual: usize },
    #[error("summing the public inputs: {0}")]
    InputSum(#[source] ProverError),
}

/// The message of a caught panic (its payload when it is a string, as `panic!` with a message
/// makes it), for the errors that report one. The one copy: cuzk-core uses it too.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

#[cfg(test)]
mod panic_tests {
    use super::panic_message;

    #[test]
    fn a_panic_message_is_its_string_payload() {
        let literal = std::panic::catch_unwind(|| panic!("literal")).unwrap_err();
        let formatted = std::panic::catch_unwind(|| panic!("formatted {}", 7)).unwrap_err();
        let other = std::panic::catch_unwind(|| std::panic::panic_any(7u32)).unwrap_err();
        assert_eq!(panic_message(literal.as_ref()), "literal");
        assert_eq!(panic_message(formatted.as_ref()), "formatted 7");
        assert_eq!(panic_message(other.as_ref()), "no message");
    }
}
