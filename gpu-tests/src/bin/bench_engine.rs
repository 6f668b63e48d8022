//! The engine on the GPU under load (the GPU machine's counterpart of `cargo xtask
//! bench-phases --engine`): for `sha` at 2^LOG (default 20) with real parameters, a sweep of
//! jobs in flight (1, 2, 4, 8, 16) for 1 to 4 GPU workers per device, printing steady-state
//! seconds per proof, the GPU busy fraction, per-phase medians and peak RSS; the JSON goes to
//! `$OUT/bench_engine.json` when `OUT` is set.
//!
//! Usage: `bench_engine [LOG] [TIMED_JOBS]`

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use cuzk_core::sweep::{render_table, run_sweep, to_json, SweepPlan};
use cuzk_core::Config;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let log_size = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let timed_jobs = args.next().and_then(|a| a.parse().ok()).unwrap_or(16);
    let plan = SweepPlan {
        circuit: "sha".into(),
        log_size,
        partitions: 1,
        concurrency: vec![1, 2, 4, 8, 16],
        workers: vec![1, 2, 3, 4],
        timed_jobs,
    };
    let config = Config::default();
    println!(
        "bench_engine: sha 2^{log_size}, {timed_jobs} timed jobs per point, {} synthesis threads",
        config.synthesis_threads()
    );
    let started = Instant::now();
    let params = match plan.parameters() {
        Ok(p) => Arc::new(p),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "parameters generated in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    match runtime.block_on(run_sweep(&plan, &config, params)) {
        Ok(points) => {
            println!("\n{}", render_table(&points));
            if let Some(out) = std::env::var_os("OUT") {
                let path = std::path::Path::new(&out).join("bench_engine.json");
                let text = serde_json::to_string_pretty(&to_json(&points)).unwrap_or_default();
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("cannot write {}: {e}", path.display());
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sweep failed: {e}");
            ExitCode::FAILURE
        }
    }
}
