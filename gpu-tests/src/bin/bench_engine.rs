//! The engine on the GPU under load (the GPU machine's counterpart of `cargo xtask
//! bench-phases --engine`): for `sha` at 2^LOG (default 20) with real parameters, a sweep of
//! jobs in flight (1, 2, 4, 8, 16) for 1 to 4 GPU workers per device, printing steady-state
//! seconds per proof, the GPU busy fraction, per-phase medians and peak RSS; the JSON goes to
//! `$OUT/bench_engine.json` when `OUT` is set, and with `--timeline` each point's timeline
//! to `$OUT/engine_timeline-w<workers>-c<jobs in flight>.svg`.
//!
//! Usage: `bench_engine [LOG] [TIMED_JOBS] [--circuit sha|mix] [--devices 0,1]
//! [--concurrency 1,2,4,8,16] [--workers 1,2,3,4] [--b-g2 auto|cpu|gpu] [--abc gpu|cpu]
//! [--synthesis-threads N] [--timeline]`
//! (`--devices`: GPU ordinals, default every visible GPU; several GPUs need more jobs in
//! flight than one; `--abc`: where a, b and c are evaluated from the constraint matrices,
//! `gpus.matrices_on_gpu`, default gpu; `--synthesis-threads`: `engine.synthesis_threads`,
//! default every core with a, b, c on the GPU, the cores less two otherwise).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use cuzk_core::sweep::{render_table, run_sweep, to_json, write_timelines, SweepPlan};
use cuzk_core::Config;
use cuzk_gpu_tests::abc_on_gpu;

/// The plan and the GPUs from the command line.
fn parse_args() -> Result<(SweepPlan, Config), String> {
    let mut plan = SweepPlan {
        circuit: "sha".into(),
        log_size: 20,
        partitions: 1,
        concurrency: vec![1, 2, 4, 8, 16],
        workers: vec![1, 2, 3, 4],
        timed_jobs: 16,
        timeline: false,
    };
    let mut config = Config::default();
    let mut positional = 0;
    let mut args = std::env::args().skip(1);
    let list = |v: String| -> Result<Vec<usize>, String> {
        v.split(',')
            .map(|x| x.parse::<usize>().map_err(|e| format!("{x}: {e}")))
            .collect()
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--circuit" => plan.circuit = value()?,
            "--devices" => {
                config.gpus.devices = list(value()?)?.into_iter().map(|d| d as u32).collect()
            }
            "--b-g2" => config.gpus.b_g2 = value()?.parse().map_err(|e| format!("{e}"))?,
            "--abc" => config.gpus.matrices_on_gpu = abc_on_gpu(&value()?)?,
            "--concurrency" => plan.concurrency = list(value()?)?,
            "--synthesis-threads" => {
                let v = value()?;
                config.engine.synthesis_threads = v
                    .parse()
                    .map_err(|e| format!("--synthesis-threads {v}: {e}"))?
            }
            "--workers" => plan.workers = list(value()?)?,
            "--timeline" => plan.timeline = true,
            number if !number.starts_with("--") && positional < 2 => {
                let n = number
                    .parse::<usize>()
                    .map_err(|e| format!("{number}: {e}"))?;
                if positional == 0 {
                    plan.log_size = n as u32;
                } else {
                    plan.timed_jobs = n;
                }
                positional += 1;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok((plan, config))
}

fn main() -> ExitCode {
    let (plan, config) = match parse_args() {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("bench_engine: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (log_size, timed_jobs) = (plan.log_size, plan.timed_jobs);
    println!(
        "bench_engine: {} 2^{log_size}, {timed_jobs} timed jobs per point, {} synthesis threads, B_G2 {:?}, a/b/c on the {}, GPUs {}",
        plan.circuit,
        config.synthesis_threads(config.gpus.matrices_on_gpu),
        config.gpus.b_g2,
        if config.gpus.matrices_on_gpu { "GPU" } else { "CPU" },
        if config.gpus.devices.is_empty() {
            "all".to_string()
        } else {
            format!("{:?}", config.gpus.devices)
        }
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
                if plan.timeline {
                    let path = std::path::Path::new(&out).join("engine_timeline.svg");
                    let what = format!("{} 2^{}", plan.circuit, plan.log_size);
                    match write_timelines(&points, &path, &what) {
                        Ok(files) => {
                            for f in files {
                                println!("timeline written to {}", f.display());
                            }
                        }
                        Err(e) => eprintln!("cannot write the timelines: {e}"),
                    }
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
