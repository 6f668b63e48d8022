//! `cargo xtask bench-phases --engine`: the engine under load on this machine (CPU provers;
//! GPU workers when xtask is built with `--features cuda` and a GPU is present; the GPU
//! bundle's `bench_engine` runs the same sweep): a concurrency sweep and a prover-count
//! sweep, with steady-state seconds per proof, per-phase medians and peak RSS, as a table and
//! optionally as JSON. `--timeline FILE.svg` draws each point's timeline: a lane per
//! synthesis thread, prover, GPU worker (prep, memory, compute) and finalizer, and one with
//! each GPU's kernels, so that the interlock of the two locks can be seen.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cuzk_core::sweep::{render_table, run_sweep, to_json, write_timelines, SweepPlan};
use cuzk_core::Config;

use crate::Options;

pub fn run(options: &Options) -> Result<()> {
    let plan = plan_from(options)?;
    let mut config = Config::default();
    config.engine.synthesis_threads = options.number("synthesis-threads", 0)?;
    println!(
        "bench-phases --engine: {} 2^{}, {} partition(s) per job, concurrency {:?}, provers {:?}, {} timed jobs per point, {} synthesis threads",
        plan.circuit,
        plan.log_size,
        plan.partitions,
        plan.concurrency,
        plan.workers,
        plan.timed_jobs,
        match config.engine.synthesis_threads {
            0 => "auto".to_string(),
            n => n.to_string(),
        }
    );
    let started = Instant::now();
    let params = Arc::new(plan.parameters()?);
    println!(
        "parameters generated in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
    let points = runtime.block_on(run_sweep(&plan, &config, params))?;
    println!("\n{}", render_table(&points));
    if let Some(path) = options.value("json") {
        std::fs::write(path, serde_json::to_string_pretty(&to_json(&points))?)
            .with_context(|| format!("writing {path}"))?;
        println!("JSON written to {path}");
    }
    if let Some(path) = options.value("timeline") {
        let what = format!("{} 2^{}", plan.circuit, plan.log_size);
        for file in write_timelines(&points, path.as_ref(), &what)
            .with_context(|| format!("writing the timeline {path}"))?
        {
            println!("timeline written to {}", file.display());
        }
    }
    Ok(())
}

fn plan_from(options: &Options) -> Result<SweepPlan> {
    let concurrency = list(options, "concurrency", &[1, 2, 4, 8, 16])?;
    // Default: as many timed jobs as the most kept in flight (the fewest the sweep accepts).
    let most = concurrency.iter().copied().max().unwrap_or(1);
    Ok(SweepPlan {
        circuit: options.string("circuit", "sha"),
        log_size: options.number("size", 14)?,
        partitions: options.number("partitions", 1)?,
        concurrency,
        workers: list(options, "workers", &[1])?,
        timed_jobs: options.number("jobs", most)?,
        timeline: match (options.flag("timeline"), options.value("timeline")) {
            (true, None) => bail!("--timeline needs a file name (FILE.svg)"),
            (timeline, _) => timeline,
        },
    })
}

/// A comma-separated list of positive integers.
fn list(options: &Options, name: &str, default: &[usize]) -> Result<Vec<usize>> {
    let Some(text) = options.value(name) else {
        return Ok(default.to_vec());
    };
    let values = text
        .split(',')
        .map(|v| v.trim().parse::<usize>().ok().filter(|n| *n > 0))
        .collect::<Option<Vec<_>>>();
    match values {
        Some(v) if !v.is_empty() => Ok(v),
        _ => bail!("--{name} {text}: expected positive integers separated by commas"),
    }
}
