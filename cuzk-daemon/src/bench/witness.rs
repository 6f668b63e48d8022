//! `cuzk bench --witness-only`: one partition's witness on this machine's cores, through the
//! circuit's gadgets and through the kind's native generator where it has one, compared value
//! for value. Needs neither a GPU nor parameters: how fast this host computes what synthesis
//! costs a proof, and whether the native witness is the gadgets' here.

use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use cuzk_core::bellperson_lite::matrices::Witness;
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
    let at_once = (args.at_once > 0)
        .then(|| at_once(args.at_once, threads, partition))
        .transpose()?;
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
            "at_once": at_once,
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

/// What `n` witnesses of `partition` computed at once cost, gadgets then native: the wall
/// time of each batch and the core-seconds per witness (wall time x threads / n). The
/// results are dropped after the clock stops.
fn at_once(
    n: usize,
    threads: usize,
    partition: &cuzk_core::Partition,
) -> Result<serde_json::Value> {
    let batch = |native: bool| -> Result<Option<f64>> {
        if native && partition.native_witness().is_none() {
            return Ok(None);
        }
        let started = Instant::now();
        let witnesses = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    scope.spawn(move || -> Result<Witness> {
                        if native {
                            let w = partition.native_witness().expect("checked above");
                            w.map_err(|e| anyhow!("the native witness: {e}"))
                        } else {
                            let w = partition.gadget_witness().expect("checked by the caller");
                            w.context("the gadgets' witness")
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().map_err(|_| anyhow!("a witness thread panicked"))?)
                .collect::<Result<Vec<Witness>>>()
        })?;
        let wall = started.elapsed().as_secs_f64();
        drop(witnesses);
        Ok(Some(wall))
    };
    let gadgets = batch(false)?.unwrap_or_default();
    let native = batch(true)?;
    let per = |wall: f64| wall * threads as f64 / n as f64;
    print!(
        "{n} at once: gadgets {gadgets:.2} s ({:.2} core-s per witness)",
        per(gadgets)
    );
    match native {
        Some(native) => println!(
            ", native {native:.2} s ({:.2} core-s per witness, {:.1}x)",
            per(native),
            gadgets / native
        ),
        None => println!(),
    }
    Ok(serde_json::json!({
        "witnesses": n,
        "gadgets_seconds": gadgets,
        "native_seconds": native,
        "gadgets_core_seconds_per_witness": per(gadgets),
        "native_core_seconds_per_witness": native.map(per),
    }))
}
