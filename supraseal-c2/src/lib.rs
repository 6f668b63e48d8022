//! supraseal-c2: the Rust side of the cuzk-cuda C ABI.
//!
//! It will hold the bindings to the kernels' `extern "C"` entry points and the safe wrappers
//! over them (GPU locks, device-resident SRS, errors returned as `{code, message}`).
//! The ABI does not exist yet, so neither do the bindings; this crate only passes the `cuda`
//! feature down and reports it.

/// Whether the GPU path was compiled in.
pub fn gpu_support_compiled() -> bool {
    cuzk_cuda::CUDA_ENABLED
}
