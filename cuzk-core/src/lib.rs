//! cuzk-core: the proving engine that node software embeds and the daemon serves.
//!
//! # Layout
//!
//! - [`pipeline`]: the stages of a proof: synthesis, then the GPU prover's start and finish
//!   halves (feature `cuda`) or the CPU prover.
//!
//! The engine (scheduler, GPU workers, memory budget, SRS manager) is built on top of these
//! stages and of [`bellperson_lite`], re-exported here so that the daemon and embedders depend
//! on one crate.

pub mod pipeline;

pub use bellperson_lite;
