//! NTT benchmark on the GPU: forward NTT over Fr at 2^20, 2^24 and 2^27 (data on the device,
//! and with the host-to-device copy from pinned memory), and the fused Groth16 H pipeline,
//! each the median of several runs after warm-up, timed with CUDA events. Prints a table with
//! the memory throughput achieved (bytes of one read and one write of the vector per run).
//!
//! Usage: `bench_ntt [--json FILE] [log_n ...]` (default: 20 24 27); `--json` writes every
//! row to FILE as well.

use std::process::ExitCode;

use cuzk_gpu_tests::report::JsonReport;
use serde_json::{json, Value};
use supraseal_c2::testing::bench_ntt;

const WARMUP: u32 = 2;
const ITERS: u32 = 7;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let Ok(report) = JsonReport::from_args(&mut args).inspect_err(|e| eprintln!("{e}")) else {
        return ExitCode::FAILURE;
    };
    let mut sizes = Vec::new();
    for a in &args {
        match a.parse::<u32>() {
            Ok(log) => sizes.push(log),
            Err(_) => {
                eprintln!("unknown argument {a:?} (usage: bench_ntt [--json FILE] [log_n ...])");
                return ExitCode::FAILURE;
            }
        }
    }
    if sizes.is_empty() {
        sizes = vec![20, 24, 27];
    }
    println!("NTT over Fr (BLS12-381), median of {ITERS} runs after {WARMUP} warm-up, CUDA events");
    println!(
        "{:>6} {:>10} {:>9} {:>14} {:>11} {:>10}",
        "size", "NTT ms", "GB/s", "H2D+NTT ms", "H pipe ms", "H GB/s"
    );
    let mut rows: Vec<Value> = Vec::new();
    for log_n in sizes {
        match bench_ntt(log_n, WARMUP, ITERS, true) {
            Ok(r) => {
                // One read and one write of n 32-byte elements: the floor any NTT pays.
                let bytes = 2.0 * 32.0 * (1u64 << log_n) as f64;
                let gbs = |ms: f32| bytes / (ms as f64 * 1e-3) / 1e9;
                // H: 7 transforms' worth of vector traffic, the minimum for the pipeline.
                let h = r.h_ms.unwrap_or(0.0);
                println!(
                    "{:>6} {:>10.3} {:>9.0} {:>14.3} {:>11.3} {:>10.0}",
                    format!("2^{log_n}"),
                    r.ntt_ms,
                    gbs(r.ntt_ms),
                    r.ntt_with_h2d_ms,
                    h,
                    7.0 * gbs(h)
                );
                rows.push(json!({
                    "log_n": log_n,
                    "ntt_ms": r.ntt_ms,
                    "ntt_with_h2d_ms": r.ntt_with_h2d_ms,
                    "h_pipeline_ms": r.h_ms,
                }));
            }
            Err(e) => {
                println!("{:>6} failed: {e}", format!("2^{log_n}"));
                rows.push(json!({ "log_n": log_n, "error": e.to_string() }));
            }
        }
    }
    let written = report.write(&json!({ "benchmark": "bench_ntt", "rows": rows }));
    if !written || rows.iter().any(|r| r.get("error").is_some()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
