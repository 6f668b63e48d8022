//! supraseal-c2: the Rust side of the cuzk-cuda C ABI.
//!
//! - [`ffi`]: the raw declarations, generated from `cuda/include/cuzk/*.h` under the `cuda`
//!   feature, and [`ffi::check`], which turns a returned `cuzk_error_t` into a `Result`.
//! - [`error`]: [`CudaError`], the typed form of the library's `{code, message}` errors.
//! - [`pace`]: [`KernelPace`](pace::KernelPace), how fast a GPU's kernels prove with a
//!   parameter set, as its proofs measured it (plain Rust).
//! - [`split`]: the CPU half of the split MSMs (zeros, ones and the rest), plain Rust.
//! - `device` (`cuda`): the visible GPUs, their names and memory.
//! - `fixed_base` (`cuda`): one base point times many scalars (parameter generation).
//! - `groth16` (`cuda`): the GPU part of the prover: [`GpuLocks`](groth16::GpuLocks) per GPU,
//!   device-resident parameters, and the start/finish proving calls.
//!
//! The safe wrappers over the kernels (NTT, MSM, ...) live in one module each and go through
//! `ffi`. Without the `cuda` feature nothing CUDA is linked and [`gpu_support_compiled`] is
//! false.

#[cfg(feature = "cuda")]
pub mod device;
pub mod error;
pub mod ffi;
#[cfg(feature = "cuda")]
pub mod fixed_base;
#[cfg(feature = "cuda")]
pub mod groth16;
#[cfg(feature = "cuda")]
pub mod msm;
#[cfg(feature = "cuda")]
pub mod ntt;
pub mod pace;
pub mod split;
#[cfg(feature = "cuda")]
pub mod testing;

pub use error::CudaError;

// The kernels' static library comes with the cuzk-cuda crate only if that crate is linked,
// and rustc links a dependency only when something names it.
#[cfg(feature = "cuda")]
extern crate cuzk_cuda;

/// Whether the GPU path was compiled in.
pub fn gpu_support_compiled() -> bool {
    cuzk_cuda::CUDA_ENABLED
}
