//! `cuzk`: the cuzk command line.
//!
//! The gRPC daemon (`cuzk.v1.ProvingEngine`) comes with the engine. Today the binary offers
//! the operator tools that already have real parts behind them:
//!
//! - `cuzk params-info PATH [--unchecked]`: read a bellperson / Filecoin `.params` file
//!   (memory-mapped, points decoded in parallel, subgroup-checked unless `--unchecked`) and
//!   print its section sizes, or the section and offset where it is broken.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cuzk_core::bellperson_lite::params::read_parameters_mmap;

const USAGE: &str = "usage: cuzk params-info PATH [--unchecked]";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("params-info") => {
            let path = args.get(1).map(PathBuf::from).context(USAGE)?;
            let checked = !args.iter().any(|a| a == "--unchecked");
            params_info(&path, checked)
        }
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command `{other}`\n{USAGE}"),
    }
}

fn params_info(path: &Path, checked: bool) -> Result<()> {
    let start = Instant::now();
    let params = read_parameters_mmap(path, checked)
        .with_context(|| format!("reading {}", path.display()))?;
    println!(
        "{}: read in {:.1} ms ({})",
        path.display(),
        start.elapsed().as_secs_f64() * 1e3,
        if checked {
            "subgroup-checked"
        } else {
            "unchecked"
        }
    );
    println!("  public inputs (ic): {}", params.vk.ic.len());
    println!(
        "  h:    {:>10} G1 (domain 2^{})",
        params.h.len(),
        (params.h.len() + 1).next_power_of_two().trailing_zeros()
    );
    println!("  l:    {:>10} G1", params.l.len());
    println!("  a:    {:>10} G1", params.a.len());
    println!("  b_g1: {:>10} G1", params.b_g1.len());
    println!("  b_g2: {:>10} G2", params.b_g2.len());
    Ok(())
}
