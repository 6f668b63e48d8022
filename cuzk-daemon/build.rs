//! Generates the gRPC server and client of `proto/cuzk/v1/cuzk.proto` with tonic. protoc comes
//! from the `protoc-bin-vendored` crate, so building needs nothing installed by hand.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto/cuzk/v1/cuzk.proto");
    tonic_build::configure().compile_protos(&["proto/cuzk/v1/cuzk.proto"], &["proto"])?;
    Ok(())
}
