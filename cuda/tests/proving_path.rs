//! No device-wide CUDA call on the proving path.
//!
//! A call that acts on the whole device (`cudaDeviceSynchronize`, `cudaMemPoolTrimTo`, the
//! implicit synchronization of plain `cudaMalloc` / `cudaFree`, synchronous copies and
//! page-locking) waits for every stream, including the kernels of another worker holding the
//! compute lock, and so silently serializes the two locks. This test reads every CUDA source
//! (except the test and benchmark helpers) and fails on any such call that is not marked, on
//! its line or the line above, with `device-wide-ok: <why it is not on the proving path>`.
//! It needs no nvcc: it reads text.

use std::path::{Path, PathBuf};

/// Calls that synchronize or act on the whole device. A name matches only as a whole
/// identifier followed by `(`, so `cudaMallocAsync` and `cudaMemcpyAsync` are allowed.
const DEVICE_WIDE: &[&str] = &[
    "cudaDeviceSynchronize",
    "cudaThreadSynchronize",
    "cudaDeviceReset",
    "cudaDeviceSetLimit",
    "cudaMemPoolTrimTo",
    "cudaMalloc",
    "cudaMallocManaged",
    "cudaMallocPitch",
    "cudaFree",
    "cudaMallocHost",
    "cudaHostAlloc",
    "cudaFreeHost",
    "cudaHostRegister",
    "cudaHostUnregister",
    "cudaMemcpy",
    "cudaMemcpyToSymbol",
    "cudaMemset",
];

const MARKER: &str = "device-wide-ok:";

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "testing" {
                sources(&path, out);
            }
        } else if (name.ends_with(".cu") || name.ends_with(".cuh")) && !name.contains("bench") {
            out.push(path);
        }
    }
}

/// Whether `code` calls `name(` (as a whole identifier).
fn calls(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find(name) {
        let start = from + at;
        let end = start + name.len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let whole = !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        if whole && code[end..].trim_start().starts_with('(') {
            return true;
        }
        from = end;
    }
    false
}

/// (line, call) of every unmarked device-wide call in `text`.
fn offences(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let marked = line.contains(MARKER) || (i > 0 && lines[i - 1].contains(MARKER));
        for name in DEVICE_WIDE {
            if calls(code, name) && !marked {
                found.push((i + 1, name.to_string()));
            }
        }
    }
    found
}

#[test]
fn no_unmarked_device_wide_call_in_the_cuda_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 5, "found only {files:?}");
    let mut report = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, name) in offences(&text) {
            report.push(format!("{}:{line}: {name}", file.display()));
        }
    }
    assert!(
        report.is_empty(),
        "device-wide CUDA calls without a `{MARKER} <reason>` mark:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_check_catches_what_it_should() {
    assert_eq!(offences("  cudaDeviceSynchronize();").len(), 1);
    assert_eq!(offences("CUZK_CUDA_CHECK(cudaMalloc (&p, n));").len(), 1);
    assert_eq!(
        offences("cudaFree(p); // device-wide-ok: teardown").len(),
        0
    );
    assert_eq!(
        offences("// device-wide-ok: once\ncudaMalloc(&p, n);").len(),
        0
    );
    assert_eq!(
        offences("cudaMallocAsync(&p, n, s); cudaMemcpyAsync(d, h, n, k, s);").len(),
        0
    );
    assert_eq!(
        offences("// cudaDeviceSynchronize() would wait for everyone").len(),
        0
    );
    assert_eq!(offences("my_cudaFree(p);").len(), 0);
}
