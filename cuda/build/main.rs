//! Build script of cuzk-cuda.
//!
//! Without the `cuda` feature it does nothing, so the crate builds on machines with no CUDA
//! toolchain. With it, every `.cu` file under `src/` is compiled by nvcc (through the `cc`
//! crate) into one static library, the CUDA runtime is linked statically (the binaries then
//! need only the NVIDIA driver on the GPU machine), and the C headers' folder is exported to
//! the crates above as `DEP_CUZK_CUDA_INCLUDE` (supraseal-c2 generates its bindings from it).

mod archs;
mod toolchain;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables that change what gets built; Cargo reruns this script when one changes.
/// (`PATH` is watched only when nvcc was found through it: every rerun recompiles all
/// kernels for every arch, which is too slow to pay for unrelated `PATH` edits.)
const WATCHED_ENV: &[&str] = &["NVCC", "CUDA_HOME", "CUDA_PATH", "CUZK_CUDA_ARCHS"];

fn main() {
    println!("cargo:rerun-if-changed=build");
    if env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    if let Err(message) = build_cuda() {
        // A panic shows the message verbatim under "build script failed"; that is the clearest
        // place for it (cargo:warning lines are easy to miss above a wall of errors).
        panic!("\n\ncuzk-cuda: {message}\n\n");
    }
}

fn build_cuda() -> Result<(), String> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let include = manifest.join("include");
    let src = manifest.join("src");
    println!("cargo:rerun-if-changed={}", include.display());
    println!("cargo:rerun-if-changed={}", src.display());
    for var in WATCHED_ENV {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let nvcc = toolchain::find_nvcc(&|k| env::var(k).ok(), &|p| p.is_file())?;
    if nvcc.found_by == "PATH" {
        println!("cargo:rerun-if-env-changed=PATH");
    }
    check_runs(&nvcc.path)?;
    let archs = archs::parse_archs(env::var("CUZK_CUDA_ARCHS").ok().as_deref())?;
    let target_arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_else(|_| "x86_64".into());
    let mut nvccs = vec![nvcc.path.clone()];
    if let Ok(real) = fs::canonicalize(&nvcc.path) {
        nvccs.push(real);
    }
    let cudart_dir = toolchain::cudart_lib_dir(&nvccs, &target_arch, &|p| p.is_file())?;

    let mut sources = Vec::new();
    collect_cu_files(&src, &mut sources).map_err(|e| format!("reading {}: {e}", src.display()))?;
    sources.sort();
    if sources.is_empty() {
        return Err(format!("no .cu files under {}", src.display()));
    }

    // cc takes the CUDA compiler from the `NVCC` variable only (its `compiler()` setting would
    // become nvcc's host compiler), so the nvcc found above is handed over through it. The
    // build script is single-threaded here, before cc starts any job.
    env::set_var("NVCC", &nvcc.path);

    let mut build = cc::Build::new();
    build
        .cuda(true)
        // The runtime is linked below, from the folder found next to this nvcc; cc's own guess
        // (`targets/<arch>-linux/lib` only) misses the wheel and lib64 layouts.
        .cudart("none")
        // libstdc++ is linked below, after cudart, so that the link order is right.
        .cpp_link_stdlib(None)
        // cc would follow the Cargo profile: `-G` (device debug: unoptimised kernels, many
        // times slower) and `-O1` for the host code in dev builds. The kernels are always
        // built optimised; device line tables come from `-lineinfo` below.
        .debug(false)
        .opt_level(3)
        .include(&include)
        .include(&src)
        .flag("-std=c++17")
        .flag("-O3")
        // constexpr host functions (std::numeric_limits, constants) usable in device code.
        .flag("--expt-relaxed-constexpr")
        // Device line tables: compute-sanitizer and profilers then name file:line in kernels.
        // They do not change the generated code.
        .flag("-lineinfo")
        .flag("-Xcompiler")
        .flag("-fPIC")
        // nvcc's device link step (cc runs it when there are several files) looks for
        // libcudadevrt there.
        .flag(format!("-L{}", cudart_dir.display()));
    for flag in archs::gencode_flags(&archs) {
        build.flag(flag);
    }
    build.files(&sources);
    build
        .try_compile("cuzk_cuda")
        .map_err(|e| format!("nvcc ({}) failed: {e}", nvcc.path.display()))?;

    println!("cargo:rustc-link-search=native={}", cudart_dir.display());
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["stdc++", "dl", "rt", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    // Read by build scripts of dependents as DEP_CUZK_CUDA_INCLUDE.
    println!("cargo:include={}", include.display());

    let names: Vec<String> = archs
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                a.number,
                a.suffix.map(String::from).unwrap_or_default()
            )
        })
        .collect();
    println!(
        "cargo:warning=cuzk-cuda: {} .cu files, nvcc {} (found by {}), archs {}",
        sources.len(),
        nvcc.path.display(),
        nvcc.found_by,
        names.join(";")
    );
    Ok(())
}

/// Fails early, with the toolchain hint, when the nvcc found cannot even start (a broken
/// venv, a wrong architecture), instead of a confusing error from cc's first compile.
fn check_runs(nvcc: &Path) -> Result<(), String> {
    let output = Command::new(nvcc).arg("--version").output().map_err(|e| {
        format!(
            "cannot run {}: {e}\n{}",
            nvcc.display(),
            toolchain::HOW_TO_GET_NVCC
        )
    })?;
    if !output.status.success() {
        return Err(format!(
            "{} --version failed: {}\n{}",
            nvcc.display(),
            String::from_utf8_lossy(&output.stderr),
            toolchain::HOW_TO_GET_NVCC
        ));
    }
    Ok(())
}

fn collect_cu_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_cu_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "cu") {
            out.push(path);
        }
    }
    Ok(())
}
