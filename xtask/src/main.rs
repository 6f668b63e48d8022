//! `cargo xtask ...`: project tasks that are programs rather than tests.
//!
//! - `demo`: build the `cuzk` binary and run `cuzk demo`: a daemon, a few jobs over gRPC,
//!   their proofs verified, the engine's timeline drawn.
//! - `bench-phases`: the per-phase benchmark table (see `docs/benchmarks.md`); with
//!   `--engine`, the engine's concurrency and prover-count sweep; `--timeline FILE.svg`
//!   (implies `--engine`) also draws what every engine thread did during each point.
//! - `bench-synthesis`: full synthesis against witness + products over recorded matrices;
//!   with `--kind porep-2k` (or another Filecoin kind and size), full synthesis, the gadgets'
//!   witness and the native one on that circuit, alone and one per core.
//! - `cuda-toolchain`: install the pinned CUDA compiler from PyPI, print the exports.
//! - `gpu-bundle`: build the GPU tests and benchmarks into `gpu-bundle/` for the GPU machine.

mod bench;
mod bench_engine;
mod bench_filecoin_synthesis;
mod bench_synthesis;
mod cuda_toolchain;
mod demo;
mod gpu_bundle;
mod stats;

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

const USAGE: &str = "usage:
  cargo xtask demo [--cuda] [--circuit sha|mix] [--log-size N] [--jobs J] [--partitions P]
                   [--memory-budget 4GiB]   (runs `cuzk demo`; files in target/cuzk-demo/)
  cargo xtask bench-phases [--backend cpu] [--circuit sha|mix] [--sizes 16..20] [--runs R]
                           [--no-reference]
  cargo xtask bench-phases --engine [--circuit sha|mix] [--size N] [--partitions P]
                           [--concurrency 1,2,4,8,16] [--workers 1,2] [--jobs J (>= the most in flight)]
                           [--synthesis-threads T] [--json FILE] [--timeline FILE.svg]
                           (--timeline implies --engine; built with --features cuda the
                           engine proves on the GPUs)
  cargo xtask bench-synthesis [--circuit sha|mix] [--sizes 16..20] [--runs R]
  cargo xtask bench-synthesis --kind porep-2k|window-post-32g|snap-32g|... [--runs R]
                              [--at-once N (default: every core)] [--full] [--json FILE]
                              (a Filecoin circuit, synthetic input: runs `cuzk bench --witness-only`)
  eval \"$(cargo xtask cuda-toolchain)\"   (installs nvcc into .cache/, prints NVCC/CUDA_HOME)
  cargo xtask gpu-bundle [--keep-debug]   (GPU tests and benchmarks into gpu-bundle/)";

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(command) = args.next() else {
        println!("{USAGE}");
        return Ok(());
    };
    let options = Options::parse(args.collect())?;
    match command.as_str() {
        "demo" => demo::run(&options),
        "bench-phases" if options.flag("engine") || options.flag("timeline") => {
            bench_engine::run(&options)
        }
        "bench-phases" => bench::run(&options),
        "bench-synthesis" => match options.value("kind") {
            Some(kind) => bench_filecoin_synthesis::run(kind, &options),
            None => bench_synthesis::run(&options),
        },
        "cuda-toolchain" => cuda_toolchain::run(),
        "gpu-bundle" => gpu_bundle::run(&options),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
}

/// `cargo run --release -p cuzk-daemon [--features cuda] --`, from the workspace root: the
/// tasks that run the `cuzk` binary append its arguments.
pub fn cuzk_command(cuda: bool) -> std::process::Command {
    let mut cargo =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .current_dir(workspace_root())
        .args(["run", "--quiet", "--release", "-p", "cuzk-daemon"]);
    if cuda {
        cargo.args(["--features", "cuda"]);
    }
    cargo.arg("--");
    cargo
}

/// The workspace's root folder (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    let xtask = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().map(PathBuf::from).unwrap_or(xtask)
}

/// Command-line options shared by the tasks; each task reads the ones it understands.
pub struct Options {
    pairs: Vec<(String, Option<String>)>,
}

impl Options {
    fn parse(args: Vec<String>) -> Result<Self> {
        let mut pairs = Vec::new();
        let mut iter = args.into_iter().peekable();
        while let Some(arg) = iter.next() {
            let Some(name) = arg.strip_prefix("--") else {
                bail!("unexpected argument `{arg}`\n{USAGE}");
            };
            let value = match iter.peek() {
                Some(next) if !next.starts_with("--") => iter.next(),
                _ => None,
            };
            pairs.push((name.to_string(), value));
        }
        Ok(Self { pairs })
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    pub fn flag(&self, name: &str) -> bool {
        self.pairs.iter().any(|(n, _)| n == name)
    }

    pub fn string(&self, name: &str, default: &str) -> String {
        self.value(name).unwrap_or(default).to_string()
    }

    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T>
    where
        T::Err: std::error::Error + Send + Sync + 'static,
    {
        match self.value(name) {
            Some(v) => v.parse().with_context(|| format!("--{name} {v}")),
            None => Ok(default),
        }
    }

    /// A range like `16..20` (inclusive) or a single number.
    pub fn range(&self, name: &str, default: (u32, u32)) -> Result<(u32, u32)> {
        let Some(v) = self.value(name) else {
            return Ok(default);
        };
        let (lo, hi) = match v.split_once("..") {
            Some((lo, hi)) => (lo.parse()?, hi.trim_start_matches('=').parse()?),
            None => {
                let n = v.parse()?;
                (n, n)
            }
        };
        if lo > hi {
            bail!("--{name} {v}: empty range");
        }
        Ok((lo, hi))
    }
}
