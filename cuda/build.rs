//! Build script of cuzk-cuda. The CUDA sources and their nvcc build arrive with the kernels;
//! until then the `cuda` feature only marks the build, and nothing is compiled.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
