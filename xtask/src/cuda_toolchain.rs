//! `cargo xtask cuda-toolchain`: the pinned CUDA compiler, installed from PyPI wheels.
//!
//! CI and the development machines have no CUDA installation, and nothing can be downloaded
//! from NVIDIA's site there; PyPI carries nvcc, the runtime, the headers (CCCL, with CUB) and
//! NVVM as wheels. They go into a virtual environment under `<workspace>/.cache/` (git-ignored),
//! and the command prints the `export` lines that point cuzk-cuda's build script at them, on
//! stdout only, so that `eval "$(cargo xtask cuda-toolchain)"` works; progress goes to stderr.
//!
//! The versions are pinned as a set: an unpinned `nvidia-nvvm` pulls a newer NVVM whose PTX the
//! 13.0 ptxas rejects.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};

/// The wheels, exactly as pip is asked for them.
pub const PINNED: &[&str] = &[
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-cccl==13.0.85",
];

/// The release `nvcc --version` must report.
const RELEASE: &str = "release 13.0";

/// An installed toolchain: the wheels' CUDA folder (`site-packages/nvidia/cu13`).
pub struct Toolchain {
    pub cuda_home: PathBuf,
}

impl Toolchain {
    pub fn nvcc(&self) -> PathBuf {
        self.cuda_home.join("bin").join("nvcc")
    }

    /// The variables that make cuzk-cuda's build script use this toolchain.
    pub fn env(&self) -> [(&'static str, PathBuf); 2] {
        [("NVCC", self.nvcc()), ("CUDA_HOME", self.cuda_home.clone())]
    }
}

pub fn run() -> Result<()> {
    let toolchain = ensure_installed()?;
    for (name, value) in toolchain.env() {
        println!("export {name}={}", shell_quote(&value.to_string_lossy()));
    }
    Ok(())
}

fn cache_dir() -> PathBuf {
    crate::workspace_root()
        .join(".cache")
        .join("cuda-toolchain")
}

fn stamp_text() -> String {
    PINNED.join("\n") + "\n"
}

/// The toolchain if it is installed with the pinned versions (checked by the stamp file and
/// the presence of nvcc, without running anything).
pub fn installed() -> Option<Toolchain> {
    let dir = cache_dir();
    let stamp = fs::read_to_string(dir.join("installed.txt")).ok()?;
    if stamp != stamp_text() {
        return None;
    }
    let toolchain = find_cuda_home(&dir.join("venv"))?;
    toolchain.nvcc().is_file().then_some(toolchain)
}

/// Installs the pinned wheels unless they are there already, and checks that nvcc runs.
pub fn ensure_installed() -> Result<Toolchain> {
    let dir = cache_dir();
    if let Some(toolchain) = installed() {
        if nvcc_version(&toolchain.nvcc()).is_ok() {
            eprintln!(
                "cuda-toolchain: pinned toolchain already in {}",
                dir.display()
            );
            return Ok(toolchain);
        }
        eprintln!(
            "cuda-toolchain: nvcc in {} does not run; reinstalling",
            dir.display()
        );
    }

    let venv = dir.join("venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        eprintln!(
            "cuda-toolchain: creating a Python virtual environment in {}",
            venv.display()
        );
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .stdout(Stdio::from(std::io::stderr()))
            .status()
            .context("running python3 (needed to install the CUDA wheels)")?;
        ensure!(
            status.success(),
            "python3 -m venv failed; on Debian/Ubuntu install the venv module with \
             `apt-get install python3-venv`"
        );
    }

    // A stale stamp must not survive a failed or partial install.
    let stamp = dir.join("installed.txt");
    let _ = fs::remove_file(&stamp);
    eprintln!("cuda-toolchain: pip install {}", PINNED.join(" "));
    let status = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .args(["--only-binary=:all:"])
        .args(PINNED)
        // pip's progress must not reach stdout, which carries only the export lines.
        .stdout(Stdio::from(std::io::stderr()))
        .status()
        .context("running pip")?;
    ensure!(
        status.success(),
        "pip install of the CUDA wheels failed (see above)"
    );

    let toolchain = find_cuda_home(&venv)
        .with_context(|| format!("no nvidia/cu13 folder in the venv {}", venv.display()))?;
    let version = nvcc_version(&toolchain.nvcc())?;
    eprintln!(
        "cuda-toolchain: {}",
        version.lines().last().unwrap_or_default()
    );
    smoke_compile(&toolchain, &dir)?;
    fs::write(&stamp, stamp_text()).with_context(|| format!("writing {}", stamp.display()))?;
    eprintln!("cuda-toolchain: installed in {}", dir.display());
    Ok(toolchain)
}

/// `venv/lib/python3.X/site-packages/nvidia/cu13`, found without running Python.
fn find_cuda_home(venv: &Path) -> Option<Toolchain> {
    let lib = venv.join("lib");
    let mut candidates: Vec<PathBuf> = fs::read_dir(&lib)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .map(|p| p.join("site-packages").join("nvidia").join("cu13"))
        .filter(|p| p.is_dir())
        .collect();
    candidates.sort();
    candidates.pop().map(|cuda_home| Toolchain { cuda_home })
}

fn nvcc_version(nvcc: &Path) -> Result<String> {
    let output = Command::new(nvcc)
        .arg("--version")
        .output()
        .with_context(|| format!("running {}", nvcc.display()))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    ensure!(
        output.status.success(),
        "{} --version failed",
        nvcc.display()
    );
    ensure!(
        text.contains(RELEASE),
        "{} is not CUDA {RELEASE}: {text}",
        nvcc.display()
    );
    Ok(text)
}

/// Compiles a file that needs what cuzk-cuda needs from the toolchain: the runtime headers,
/// NVVM (device code) and CUB from CCCL, with nvcc called by its absolute path as the build
/// script calls it. Catches a wheel set that installs but does not work together.
fn smoke_compile(toolchain: &Toolchain, dir: &Path) -> Result<()> {
    let source = dir.join("smoke.cu");
    fs::write(
        &source,
        "#include <cuda_runtime.h>\n#include <cub/device/device_radix_sort.cuh>\n\
         __global__ void twice(unsigned* x) { x[threadIdx.x] *= 2; }\n\
         void sort(unsigned* k, size_t n) {\n  size_t bytes = 0;\n  \
         cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, k, int(n));\n}\n",
    )?;
    eprintln!("cuda-toolchain: test compile (runtime headers, NVVM, CUB) for sm_90");
    let output = Command::new(toolchain.nvcc())
        .args(["-std=c++17", "-arch=sm_90", "-c", "-o"])
        .arg(dir.join("smoke.o"))
        .arg(&source)
        .output()
        .context("running nvcc")?;
    if !output.status.success() {
        bail!(
            "the installed nvcc cannot compile a small CUDA file:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let _ = fs::remove_file(dir.join("smoke.o"));
    let _ = fs::remove_file(&source);
    Ok(())
}

/// Single-quotes a value for POSIX shells.
fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn the_stamp_names_every_pin() {
        let stamp = stamp_text();
        for pin in PINNED {
            assert!(stamp.lines().any(|l| l == *pin));
        }
    }
}
