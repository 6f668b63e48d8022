//! `cuzk bench --witness-only`: one partition's witness on this machine's cores, through the
//! circuit's gadgets and through the kind's native generator where it has one, compared value
//! for value. Needs neither a GPU nor parameters: how fast this host computes what synthesis
//! costs a proof, and whether the native witness is the gadgets' here.

use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use cuzk_core::filecoin::FilecoinJob;

use super::BenchArgs;

/// Times `--jobs` (default 2) runs of each witness of the job's first partition.
pub(super) fn run(args: &BenchArgs, job: &FilecoinJob) -> Result<()> {
    let partition = job
        .partitions
        .first()
        .ok_or_else(|| anyhow!("{} has no partitions", job.circuit_id))?;
    let runs = args.jobs.unwrap_or(2).max(1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut gadgets, mut native) = (Vec::new(), Vec::new());
    let mut equal = None;
    for run in 1..=runs {
        let started = Instant::now();
        let from_gadgets = partition
            .gadget_witness()
            .ok_or_else(|| anyhow!("{} is always synthesized in full", job.circuit_id))?
            .context("the gadgets' witness")?;
        gadgets.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        let Some(from_native) = partition.native_witness() else {
            println!(
                "run {run}: gadgets {:.2} s (no native generator for {})",
                gadgets[run - 1],
                job.kind
            );
            continue;
        };
        let from_native = from_native.map_err(|e| anyhow!("the native witness: {e}"))?;
        native.push(started.elapsed().as_secs_f64());
        let same = from_native == from_gadgets;
        equal = Some(equal.unwrap_or(true) && same);
        println!(
            "run {run}: gadgets {:.2} s, native {:.2} s, {} aux values, {}",
            gadgets[run - 1],
            native[run - 1],
            from_gadgets.aux.len(),
            if same { "equal" } else { "DIFFERENT" }
        );
    }
    let median = |v: &mut Vec<f64>| -> Option<f64> {
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then(|| v[v.len() / 2])
    };
    let (g, n) = (median(&mut gadgets.clone()), median(&mut native.clone()));
    if let (Some(g), Some(n)) = (g, n) {
        println!(
            "{} on {threads} threads: gadgets {g:.2} s, native {n:.2} s ({:.1}x), median of {runs}",
            job.circuit_id,
            g / n
        );
    }
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "kind": args.kind,
            "sector_size": args.sector_size,
            "circuit_id": job.circuit_id,
            "threads": threads,
            "gadgets_seconds": gadgets,
            "native_seconds": native,
            "median_gadgets_seconds": g,
            "median_native_seconds": n,
            "equal": equal,
        });
        std::fs::write(path, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("figures: {}", path.display());
    }
    if equal == Some(false) {
        bail!("the native witness differs from the gadgets' (the engine would not use it)");
    }
    Ok(())
}
