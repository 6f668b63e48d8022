//! cuzk-core: the proving engine that node software embeds and the daemon serves.
//!
//! The engine (scheduler, per-partition pipeline, GPU workers, memory budget, SRS manager)
//! is built on top of [`bellperson_lite`], re-exported here so that the daemon and embedders
//! depend on one crate. Today the CPU prover of `bellperson_lite` is the proving path.

pub use bellperson_lite;
