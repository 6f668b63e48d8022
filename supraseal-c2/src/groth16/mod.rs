//! Safe wrappers over the GPU part of the Groth16 prover (`cuda/include/cuzk/groth16.h`).
//!
//! - [`GpuLocks`]: one per GPU, shared by its workers: the memory lock, the compute lock and
//!   the VRAM budget. Cloning shares the same object; the last clone destroys it.
//! - [`DeviceParams`]: a parameter set's G1 vectors on one GPU (resident, or streamed per proof
//!   when they do not fit), keeping alive whatever owns the host arrays.
//! - [`DeviceMatrices`]: a circuit shape's constraint matrices on one GPU, so that a proof's
//!   a, b and c are evaluated there from its witness instead of being uploaded.
//! - [`start`] / [`PendingGpu::finish`]: the GPU sums of a batch of circuits. `start` returns
//!   when the GPU is done with the inputs; the caller computes B's G2 sum on the CPU meanwhile
//!   (on another thread) and assembles the proofs from both.
//!
//! # Layout
//!
//! - `locks`: [`GpuLocks`], [`SendableGpuMutex`], the counters.
//! - `params`: [`DeviceParams`] and [`Residency`].
//! - `matrices`: [`DeviceMatrices`] and the borrowed host form [`MatricesRef`].
//! - `upload`: [`UploadSignal`], set by the library's callback after the uploads.
//! - `prove`: [`start`], [`PendingGpu`], the per-circuit inputs and results.

mod locks;
mod matrices;
mod params;
mod prove;
mod upload;

pub use locks::{default_locks_info, GpuLocks, GpuLocksInfo, GpuMutexPtr, SendableGpuMutex};
pub use matrices::{DeviceMatrices, HostMatrices, MatricesRef, SparseRowsRef};
pub use params::{DeviceParams, QueryVectors, Residency};
pub use prove::{
    inject_faults, start, CircuitInputs, Evaluations, GpuBatch, GpuSums, GpuTimings, PendingGpu,
    Priority, Scalars, WitnessRef,
};
pub use upload::UploadSignal;
