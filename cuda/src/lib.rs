//! cuzk-cuda: the CUDA side of cuzk.
//!
//! This crate will hold the C++/CUDA kernels for BLS12-381 (field and curve arithmetic,
//! Pippenger MSM, NTT, batch addition) and the C ABI they export, compiled by `build.rs`
//! with nvcc when the `cuda` feature is on. Without the feature it builds with no CUDA
//! toolchain and exports nothing, so every crate above it builds and tests on machines
//! without a GPU.
//!
//! No kernels exist yet; [`CUDA_ENABLED`] tells the crates above whether this build was
//! asked for them.

/// Whether this build was made with the `cuda` feature.
pub const CUDA_ENABLED: bool = cfg!(feature = "cuda");
