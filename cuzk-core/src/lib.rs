//! cuzk-core: the proving engine that node software embeds and the daemon serves.
//!
//! An [`Engine`] accepts proof jobs, splits them into partitions, synthesizes partitions on a
//! pool of CPU threads (highest priority first, admitted by a RAM budget), proves them, checks
//! every proof against the verifying key and returns the proofs in partition order.
//!
//! # Layout
//!
//! - [`config`]: the TOML configuration, its defaults (`cuzk.example.toml`) and validation.
//! - [`engine`]: [`Engine`]: intake, job table, status, shutdown; spawns the threads.
//! - `synthesis`: the synthesis threads (parameters, RAM reservation, assignment).
//! - `backend`: the prover seam: a backend proves a partition in two halves (CPU; one per
//!   GPU with feature `cuda`; fake devices for tests with feature `fake-backend`), and the
//!   faults that take one out of rotation.
//! - `proving`: the prover threads for any backend: workers, finalizers, the self-check.
//! - [`job`]: requests, job ids and priorities, job state and results.
//! - [`gpu_phases`]: where a job's GPU halves spent their time, phase by phase.
//! - [`kind`]: proof kinds ([`kind::ProofWork`]) and partitions; the generic bellpepper kind.
//! - [`native_witness`]: a kind's native witness, used per circuit id once checked.
//! - `scheduler`: the priority queue of partitions.
//! - `shared`: what the engine's threads share, and what they learn per circuit.
//! - `active`: a count of things under way (partitions in synthesis).
//! - `budget`: the host-memory budget (blocking reservations).
//! - [`circuit_id`]: the rule that keeps circuit ids names, not paths.
//! - [`srs`]: the parameter sets by circuit id: loading, sharing, LRU eviction, tiers.
//! - `page_cache`: whether a file is in the page cache (the WARM tier).
//! - `panics`: the message of a caught panic.
//! - `partition_error`: why a partition failed, and whether it is proved again or its job fails.
//! - [`sweep`]: a load generator for benchmarks (jobs kept in flight, steady-state figures).
//! - [`timeline`]: what each engine thread did when (recorded on request), drawn as SVG.
//! - [`metrics`]: counters and histograms in the Prometheus text format.
//! - [`error`]: the engine's typed errors.
//!
//! [`bellperson_lite`] is re-exported, so that the daemon and embedders depend on one crate.

mod active;
mod backend;
mod budget;
pub mod circuit_id;
pub mod config;
pub mod engine;
pub mod error;
#[cfg(feature = "filecoin")]
pub mod filecoin;
pub mod gpu_phases;
mod handoff;
pub mod job;
pub mod kind;
pub mod metrics;
pub mod native_witness;
mod page_cache;
mod panics;
mod partition_error;
mod proving;
mod scheduler;
mod shared;
pub mod srs;
pub mod sweep;
mod synthesis;
pub mod timeline;

#[cfg(feature = "fake-backend")]
pub use backend::fake;
pub use bellperson_lite;
pub use config::Config;
pub use engine::{
    DeviceSrsStatus, Engine, EngineStatus, GpuStatus, QueueStatus, ShutdownReport, Submitted,
};
pub use error::EngineError;
pub use gpu_phases::GpuPhases;
pub use job::{JobId, JobResult, JobState, JobTimings, Priority, ProofRequest};
pub use kind::{CircuitProofs, Partition, ProofWork};
