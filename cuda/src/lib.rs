//! cuzk-cuda: the CUDA side of cuzk.
//!
//! The C++/CUDA sources under `src/` (field and curve arithmetic, Pippenger MSM, NTT, batch
//! addition) export a C ABI declared in `include/cuzk/*.h`. With the `cuda` feature,
//! `build/main.rs` compiles every `.cu` file with nvcc into a static library linked into
//! whatever depends on this crate, together with the static CUDA runtime; supraseal-c2 holds
//! the Rust bindings. Without the feature nothing is compiled and no CUDA toolchain is
//! needed, so every crate above it builds and tests on machines without a GPU.
//!
//! How nvcc is found and which GPU architectures are compiled: see `build/toolchain.rs`,
//! `build/archs.rs` and the "Building the CUDA code" section of `docs/architecture.md`.

/// Whether this build was made with the `cuda` feature (the kernels are linked in).
pub const CUDA_ENABLED: bool = cfg!(feature = "cuda");

// The build script's pure logic, compiled here too so that `cargo test` covers it.
#[cfg(test)]
#[path = "../build/archs.rs"]
mod build_archs;
#[cfg(test)]
#[path = "../build/toolchain.rs"]
mod build_toolchain;
