//! `cargo xtask demo`: the product at work. Builds the `cuzk` binary (release; with
//! `--cuda`, the GPU build) and runs `cuzk demo`, which starts a daemon in its process,
//! proves a few jobs over gRPC (one CRITICAL job overtaking the others), verifies them, draws
//! the engine's timeline and drains the daemon. Its files go to `target/cuzk-demo/`.

use anyhow::{bail, Context, Result};

use crate::{cuzk_command, workspace_root, Options};

/// `cuzk demo`'s options passed through as they are.
const PASSED: [&str; 5] = ["circuit", "log-size", "jobs", "partitions", "memory-budget"];

pub fn run(options: &Options) -> Result<()> {
    let mut cargo = cuzk_command(options.flag("cuda"));
    cargo
        .args(["demo", "--dir"])
        .arg(workspace_root().join("target").join("cuzk-demo"));
    for name in PASSED {
        if let Some(value) = options.value(name) {
            cargo.arg(format!("--{name}")).arg(value);
        }
    }
    let status = cargo.status().context("cannot run cargo")?;
    if !status.success() {
        bail!("cuzk demo failed ({status})");
    }
    Ok(())
}
