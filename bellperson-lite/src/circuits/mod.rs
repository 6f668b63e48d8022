//! Test circuits shared by tests and benchmarks.
//!
//! Both have exactly `2^N` constraints as the prover sees them (their own constraints plus the
//! one per public input that synthesis adds), so the domain is exactly `2^N` and figures
//! compare across provers. Both have one public input. Their witnesses come from a seed, so
//! a circuit is a few bytes until it is synthesized, and clones are cheap.
//!
//! - [`ShaCircuit`]: chained SHA-256 compressions, bit-heavy like PoRep.
//! - [`MixCircuit`]: `a * b = c` constraints over a chosen fraction of bit values.
//! - [`TestCircuit`]: either of them, chosen by name.
//! - [`InterleavedCircuit`]: a few constraints in the layouts that matter to recorded
//!   matrices (inputs between constraints, parts merged with `extend`); not of size 2^N.

mod interleaved;
mod mix;
mod named;
mod sha;

pub use self::interleaved::InterleavedCircuit;
pub use self::mix::MixCircuit;
pub use self::named::{TestCircuit, TestCircuitError};
pub use self::sha::{
    ShaCircuit, SHA256_FIRST_COMPRESSION_CONSTRAINTS, SHA256_NEXT_COMPRESSION_CONSTRAINTS,
};

/// A test circuit cannot be built at the requested size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {circuit} circuit needs at least 2^{min_log_size} constraints, 2^{log_size} was asked for"
)]
pub struct CircuitSizeError {
    pub circuit: &'static str,
    pub log_size: u32,
    pub min_log_size: u32,
}

/// Constraints that synthesis adds per public input (the constant one and the circuit's one
/// public input).
const INPUT_CONSTRAINTS: usize = 2;
