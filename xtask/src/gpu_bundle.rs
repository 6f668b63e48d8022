//! `cargo xtask gpu-bundle`: the GPU tests and benchmarks, built to be run elsewhere.
//!
//! The GPU machine has no Rust toolchain, so the test executables of `cuzk-gpu-tests` and its
//! benchmark binaries are built here (release, `cuda` feature on) and copied into
//! `<workspace>/gpu-bundle/` (git-ignored) with `run.sh`, which runs them all there and prints
//! a summary table last (see `gpu_bundle_run.sh`). The CUDA runtime is linked statically, so
//! the binaries need only the NVIDIA driver; this is checked with `ldd` before the bundle is
//! declared done.
//!
//! The copies are stripped of debug information (symbols stay, so backtraces still name
//! functions) and of the `__nv_relfatbin` section, the relocatable device code that nvlink
//! read at build time and the CUDA runtime never loads (it runs the linked `.nv_fatbin`;
//! the GPU tests and benchmarks ran without it on the H200, 2026-12-01). That section is
//! most of a binary that links the kernels; `strip` leaves zeros in its place, so the copies
//! compress well (`tar` then `xz` with a large dictionary also shares the `.nv_fatbin` that
//! every binary carries). `--keep-debug` keeps both.
//!
//! nvcc comes from the environment as for any CUDA build; when none is set, the toolchain that
//! `cargo xtask cuda-toolchain` installed is used. The kernels are built for sm_90 only unless
//! `CUZK_CUDA_ARCHS` says otherwise: the GPU machine is an H200, and every further
//! architecture adds a full compile of every kernel and grows the bundle, which has to travel.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::cuda_toolchain;
use crate::Options;

const PACKAGE: &str = "cuzk-gpu-tests";
const RUN_SH: &str = include_str!("gpu_bundle_run.sh");

pub fn run(options: &Options) -> Result<()> {
    let keep_debug = options.flag("keep-debug");
    let root = crate::workspace_root();
    let env = build_env();

    eprintln!("gpu-bundle: building the test executables of {PACKAGE}");
    let tests = build(
        &env,
        &[
            "test",
            "--release",
            "-p",
            PACKAGE,
            "--features",
            "cuda",
            "--no-run",
        ],
        |kinds, is_test| is_test && kinds.iter().any(|k| k == "test"),
    )?;
    eprintln!("gpu-bundle: building the benchmark binaries of {PACKAGE}");
    let benches = build(
        &env,
        &[
            "build",
            "--release",
            "-p",
            PACKAGE,
            "--features",
            "cuda",
            "--bins",
        ],
        |kinds, is_test| !is_test && kinds.iter().any(|k| k == "bin"),
    )?;

    let bundle = root.join("gpu-bundle");
    if bundle.exists() {
        fs::remove_dir_all(&bundle).with_context(|| format!("removing {}", bundle.display()))?;
    }
    let mut copied = Vec::new();
    for (folder, binaries) in [("tests", &tests), ("bench", &benches)] {
        let dir = bundle.join(folder);
        fs::create_dir_all(&dir)?;
        for (name, source) in binaries {
            let target = dir.join(name);
            copy_binary(source, &target, keep_debug)?;
            copied.push(target);
        }
    }
    let script = bundle.join("run.sh");
    fs::write(&script, RUN_SH)?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;

    for binary in &copied {
        check_no_shared_cudart(binary)?;
    }

    let mut total = 0;
    for path in copied.iter().chain([&script]) {
        let size = fs::metadata(path)?.len();
        total += size;
        let shown = path.strip_prefix(&root).unwrap_or(path);
        println!("{:>10.1} MiB  {}", mib(size), shown.display());
    }
    if tests.is_empty() {
        println!("note: {PACKAGE} has no test executables yet (gpu-tests/tests/*.rs)");
    }
    if benches.is_empty() {
        println!("note: {PACKAGE} has no benchmark binaries yet (gpu-tests/src/bin/*.rs)");
    }
    println!(
        "bundle: {} ({} tests, {} benchmarks, {:.1} MiB); on the GPU machine run gpu-bundle/run.sh",
        bundle.display(),
        tests.len(),
        benches.len(),
        mib(total)
    );
    Ok(())
}

/// Copies `source` to `target`, without its debug sections unless `keep_debug`.
fn copy_binary(source: &Path, target: &Path, keep_debug: bool) -> Result<()> {
    if !keep_debug {
        let stripped = Command::new("strip")
            .arg("--strip-debug")
            .arg("--remove-section=__nv_relfatbin")
            .arg("-o")
            .arg(target)
            .arg(source)
            .status();
        match stripped {
            Ok(status) if status.success() => return Ok(()),
            Ok(status) => eprintln!("gpu-bundle: strip failed ({status}); copying unstripped"),
            Err(e) => eprintln!("gpu-bundle: cannot run strip ({e}); copying unstripped"),
        }
    }
    fs::copy(source, target)
        .with_context(|| format!("copying {} to {}", source.display(), target.display()))?;
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Variables for the nested cargo. `CUZK_CUDA_ARCHS=90` unless set. `NVCC`/`CUDA_HOME`: none
/// when the caller chose a toolchain (any of the variables the build script reads is set),
/// else the one in `.cache` if installed (else the build script reports what is missing).
fn build_env() -> Vec<(&'static str, PathBuf)> {
    let is_set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    let mut env = Vec::new();
    if !is_set("CUZK_CUDA_ARCHS") {
        eprintln!("gpu-bundle: CUZK_CUDA_ARCHS not set; building for sm_90 (H200) only");
        env.push(("CUZK_CUDA_ARCHS", PathBuf::from("90")));
    }
    if !["NVCC", "CUDA_HOME", "CUDA_PATH"].iter().any(|v| is_set(v)) {
        if let Some(toolchain) = cuda_toolchain::installed() {
            eprintln!(
                "gpu-bundle: NVCC not set; using {} (cargo xtask cuda-toolchain)",
                toolchain.nvcc().display()
            );
            env.extend(toolchain.env());
        }
    }
    env
}

/// Runs cargo with `args` and JSON messages; returns the executables of the artifacts that
/// `keep(target kinds, profile.test)` selects, by target name (sorted, so the bundle's
/// order is stable).
fn build(
    env: &[(&str, PathBuf)],
    args: &[&str],
    keep: impl Fn(&[String], bool) -> bool,
) -> Result<BTreeMap<String, PathBuf>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(&cargo)
        .args(args)
        // Diagnostics rendered for people on stderr; stdout carries one JSON message a line.
        .arg("--message-format=json-render-diagnostics")
        .current_dir(crate::workspace_root())
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {cargo}"))?;
    ensure!(output.status.success(), "cargo {} failed", args.join(" "));
    parse_artifacts(&String::from_utf8_lossy(&output.stdout), keep)
}

fn parse_artifacts(
    messages: &str,
    keep: impl Fn(&[String], bool) -> bool,
) -> Result<BTreeMap<String, PathBuf>> {
    let mut found = BTreeMap::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let message: Value = serde_json::from_str(line).context("a cargo JSON message")?;
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(executable) = message["executable"].as_str() else {
            continue;
        };
        let kinds: Vec<String> = message["target"]["kind"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let is_test = message["profile"]["test"].as_bool().unwrap_or(false);
        if !keep(&kinds, is_test) {
            continue;
        }
        let name = message["target"]["name"]
            .as_str()
            .context("an artifact without a target name")?
            .to_string();
        if let Some(previous) = found.insert(name.clone(), PathBuf::from(executable)) {
            bail!(
                "two executables named {name}: {} and {executable}",
                previous.display()
            );
        }
    }
    Ok(found)
}

/// The bundle promises binaries that need only the driver: a dynamic libcudart would not be
/// on the GPU machine's library path.
fn check_no_shared_cudart(binary: &Path) -> Result<()> {
    let output = match Command::new("ldd").arg(binary).output() {
        Ok(output) => output,
        Err(e) => {
            eprintln!("gpu-bundle: cannot run ldd ({e}); shared-library check skipped");
            return Ok(());
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    if let Some(line) = text.lines().find(|l| l.contains("libcudart")) {
        bail!(
            "{} links the CUDA runtime dynamically ({}); it must be static",
            binary.display(),
            line.trim()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESSAGES: &str = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"cuzk_gpu_tests"},"profile":{"test":true},"executable":"/t/deps/cuzk_gpu_tests-1"}
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"cuzk_gpu_tests"},"profile":{"test":false},"executable":null}
{"reason":"compiler-artifact","target":{"kind":["test"],"name":"ntt"},"profile":{"test":true},"executable":"/t/deps/ntt-2"}
{"reason":"compiler-artifact","target":{"kind":["bin"],"name":"msm_bench"},"profile":{"test":false},"executable":"/t/msm_bench"}
{"reason":"build-finished","success":true}"#;

    #[test]
    fn integration_tests_only() {
        let tests = parse_artifacts(MESSAGES, |k, t| t && k.iter().any(|k| k == "test")).unwrap();
        assert_eq!(
            tests.into_iter().collect::<Vec<_>>(),
            vec![("ntt".into(), "/t/deps/ntt-2".into())]
        );
    }

    #[test]
    fn binaries_only() {
        let bins = parse_artifacts(MESSAGES, |k, t| !t && k.iter().any(|k| k == "bin")).unwrap();
        assert_eq!(
            bins.into_iter().collect::<Vec<_>>(),
            vec![("msm_bench".into(), "/t/msm_bench".into())]
        );
    }
}
