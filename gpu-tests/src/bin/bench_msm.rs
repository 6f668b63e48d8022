//! MSM and batch-addition benchmark on the GPU: G1 MSM with random 255-bit scalars at 2^20,
//! 2^22, 2^24 and 2^26 points, batch addition of 2^26 points with half the bits set (one
//! bitmap, and four at once), and G2 MSM at 2^20 and 2^24 points. Each figure is the median of several runs after warm-up, timed
//! with CUDA events, on inputs already on the device and including their host-to-device copy.
//!
//! Inputs: distinct pseudo-random points (built in parallel; a few points tiled to the size
//! would stay in the GPU's L2 cache and flatter the bucket sums, whose point reads are
//! scattered over the whole vector) and random scalars below r from a splitmix64 stream.
//!
//! Usage: `bench_msm [--json FILE] [--windows C,C,...] [log_n ...] [g2:log_n ...]` (default:
//! 20 22 24 26 g2:20 g2:24; batch addition at the largest G1 size; no G2 MSM unless asked when
//! G1 sizes are given). `--windows` also times the G1 and G2 MSMs at every size with each of
//! those window sizes forced (4 to 22 bits), beside the planned one, so that one run compares
//! windows. Every addition rate is printed with its fraction of the H200's arithmetic roof
//! (`cuzk_gpu_tests::roof`); `--json` writes every row to FILE as well.

use std::process::ExitCode;

use blstrs::{G1Affine, Scalar};
use cuzk_gpu_tests::points::{distinct_points, distinct_points_g2};
use cuzk_gpu_tests::report::JsonReport;
use cuzk_gpu_tests::roof::Group;
use serde_json::{json, Value};
use supraseal_c2::msm::{bench_batch_add_g1, bench_msm_g1, bench_msm_g2, MsmBench, WINDOW_BITS};
use supraseal_c2::CudaError;

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Uniform scalars in [0, r): 255-bit candidates, those >= r rejected (about 9%).
fn random_scalars(rng: &mut SplitMix, n: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let limbs = [rng.next(), rng.next(), rng.next(), rng.next() >> 1];
        if let Some(s) = Option::from(Scalar::from_u64s_le(&limbs)) {
            out.push(s);
        }
    }
    out
}

/// One row of an MSM table (`table`: which one, for the JSON), printed; returns its JSON.
fn msm_row(table: &str, group: Group, log_n: u32, r: &MsmBench) -> Value {
    let n = (1usize << log_n) as f64;
    let point_bytes = match group {
        Group::G1 => 96.0,
        Group::G2 => 192.0,
    };
    // Work: n mixed additions into buckets per window. Bytes: the points and scalars read
    // once (a floor; each window reads them again).
    let adds = n * r.windows as f64;
    let bytes = n * (point_bytes + 32.0);
    let secs = r.device_ms as f64 * 1e-3;
    let roof = group.fraction_of_roof(adds, secs);
    println!(
        "{:>6} {:>9.2} {:>12.2} {:>8.2} {:>8.2} {:>8.2} {:>9} {:>10.2} {:>7.0}% {:>8.2}",
        format!("2^{log_n}"),
        r.device_ms,
        r.with_h2d_ms,
        r.sort_ms,
        r.bucket_ms,
        r.reduce_ms,
        format!("{}x{}", r.window_bits, r.windows),
        adds / secs / 1e9,
        roof * 100.0,
        bytes / secs / 1e9
    );
    json!({
        "table": table,
        "group": format!("{group:?}"),
        "log_n": log_n,
        "device_ms": r.device_ms,
        "with_h2d_ms": r.with_h2d_ms,
        "sort_ms": r.sort_ms,
        "bucket_ms": r.bucket_ms,
        "reduce_ms": r.reduce_ms,
        "window_bits": r.window_bits,
        "windows": r.windows,
        "gadd_per_s": adds / secs / 1e9,
        "fraction_of_roof": roof,
    })
}

const MSM_HEADER: [&str; 10] = [
    "size",
    "MSM ms",
    "H2D+MSM ms",
    "sort",
    "buckets",
    "reduce",
    "c x W",
    "Gadd/s",
    "of roof",
    "GB/s",
];

fn print_header() {
    let h = MSM_HEADER;
    println!(
        "{:>6} {:>9} {:>12} {:>8} {:>8} {:>8} {:>9} {:>10} {:>8} {:>8}",
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9]
    );
}

/// The rows of one MSM size: the planned window (table `planned`), then each of `windows`
/// other than the planned one, forced (table `forced`). `run(window)` times one MSM.
fn window_rows(
    (planned, forced): (&str, &str),
    group: Group,
    log_n: u32,
    windows: &[u32],
    run: impl Fn(Option<u32>) -> Result<MsmBench, CudaError>,
    rows: &mut Vec<Value>,
) {
    let result = run(None);
    let planned_bits = result.as_ref().map_or(0, |r| r.window_bits);
    rows.push(match result {
        Ok(r) => msm_row(planned, group, log_n, &r),
        Err(e) => failed_row(planned, log_n, e),
    });
    for &c in windows.iter().filter(|&&c| c != planned_bits) {
        rows.push(match run(Some(c)) {
            Ok(r) => msm_row(forced, group, log_n, &r),
            Err(e) => failed_row(forced, log_n, e),
        });
    }
}

/// A row that failed, printed; its JSON.
fn failed_row(table: &str, log_n: u32, e: impl std::fmt::Display) -> Value {
    println!("{:>6} failed: {e}", format!("2^{log_n}"));
    json!({ "table": table, "log_n": log_n, "error": e.to_string() })
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let Ok(report) = JsonReport::from_args(&mut args).inspect_err(|e| eprintln!("{e}")) else {
        return ExitCode::FAILURE;
    };
    let mut sizes = Vec::new();
    let mut g2_sizes = Vec::new();
    let mut windows = Vec::new();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if a == "--windows" {
            let list = args.next().unwrap_or_default();
            match list
                .split(',')
                .map(str::parse::<u32>)
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(w) if !w.is_empty() && w.iter().all(|c| WINDOW_BITS.contains(c)) => windows = w,
                _ => {
                    eprintln!(
                        "--windows {list:?}: expected a comma-separated list of window sizes in {WINDOW_BITS:?}"
                    );
                    return ExitCode::FAILURE;
                }
            }
        } else if let Some(log) = a.strip_prefix("g2:").and_then(|l| l.parse::<u32>().ok()) {
            g2_sizes.push(log);
        } else if let Ok(log) = a.parse::<u32>() {
            sizes.push(log);
        } else {
            eprintln!(
                "unknown argument {a:?} (usage: bench_msm [--json FILE] [--windows C,C,...] [log_n ...] [g2:log_n ...])"
            );
            return ExitCode::FAILURE;
        }
    }
    if sizes.is_empty() && g2_sizes.is_empty() {
        sizes = vec![20, 22, 24, 26];
        g2_sizes = vec![20, 24];
    }
    let mut rows = Vec::new();
    if !sizes.is_empty() {
        bench_g1(&sizes, &windows, &mut rows);
    }
    if !g2_sizes.is_empty() {
        bench_g2(&g2_sizes, &windows, &mut rows);
    }
    let written = report.write(&json!({ "benchmark": "bench_msm", "rows": rows }));
    if !written || rows.iter().any(|r| r.get("error").is_some()) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The G2 MSM table, its rows added to `rows`; also with each of `windows` forced.
fn bench_g2(sizes: &[u32], windows: &[u32], rows: &mut Vec<Value>) {
    let n_max = 1usize << *sizes.iter().max().unwrap();
    let points = distinct_points_g2(2, n_max);
    let scalars = random_scalars(&mut SplitMix(0x9e2), n_max);
    println!();
    println!("G2 MSM (BLS12-381), random 255-bit scalars, median after warm-up, CUDA events");
    print_header();
    for &log_n in sizes {
        let n = 1usize << log_n;
        let (warmup, iters) = if log_n >= 24 { (1, 3) } else { (2, 7) };
        window_rows(
            ("g2_msm", "g2_msm_forced_window"),
            Group::G2,
            log_n,
            windows,
            |c| bench_msm_g2(&points[..n], &scalars[..n], c, warmup, iters),
            rows,
        );
    }
}

/// The G1 MSM and batch-addition tables, their rows added to `rows`; the MSM also with each
/// of `windows` forced.
fn bench_g1(sizes: &[u32], windows: &[u32], rows: &mut Vec<Value>) {
    let max_log = *sizes.iter().max().unwrap();
    let n_max = 1usize << max_log;

    let points: Vec<G1Affine> = distinct_points(1, n_max);
    let mut sm = SplitMix(0x5eed);
    let scalars = random_scalars(&mut sm, n_max);

    println!("G1 MSM (BLS12-381), random 255-bit scalars, median after warm-up, CUDA events");
    print_header();
    for &log_n in sizes {
        let n = 1usize << log_n;
        let (warmup, iters) = if log_n >= 25 { (1, 3) } else { (2, 7) };
        window_rows(
            ("g1_msm", "g1_msm_forced_window"),
            Group::G1,
            log_n,
            windows,
            |c| bench_msm_g1(&points[..n], &scalars[..n], c, warmup, iters),
            rows,
        );
    }

    // Every scalar equal: each window's points all fall in one bucket, the worst case for the
    // bucket sums (up to 2^24: beyond it the rows take long when the grouping regresses).
    println!();
    println!("G1 MSM, every scalar equal (one bucket per window), median after warm-up");
    print_header();
    let same = vec![scalars[0]; n_max.min(1 << 24)];
    for &log_n in sizes.iter().filter(|&&l| l <= 24) {
        let n = 1usize << log_n;
        rows.push(match bench_msm_g1(&points[..n], &same[..n], None, 1, 3) {
            Ok(r) => msm_row("g1_msm_equal_scalars", Group::G1, log_n, &r),
            Err(e) => failed_row("g1_msm_equal_scalars", log_n, e),
        });
    }

    // Batch addition: half the bits set at random, one bitmap and four bitmaps.
    let words = n_max.div_ceil(64);
    let bitmaps: Vec<Vec<u64>> = (0..4)
        .map(|_| (0..words).map(|_| sm.next()).collect())
        .collect();
    println!();
    println!("G1 batch addition, 2^{max_log} points, half the bits set, median after warm-up");
    println!(
        "{:>8} {:>10} {:>14} {:>10} {:>12} {:>8} {:>8}",
        "bitmaps", "ms", "H2D+add ms", "GB/s", "of 4.8 TB/s", "Gadd/s", "of roof"
    );
    for count in [1usize, 4] {
        let refs: Vec<&[u64]> = bitmaps[..count].iter().map(Vec::as_slice).collect();
        match bench_batch_add_g1(&points, &refs, 2, 7) {
            Ok(r) => {
                // The floor: the points read once plus the bitmaps.
                let bytes = (n_max * 96 + count * words * 8) as f64;
                let gbs = bytes / (r.device_ms as f64 * 1e-3) / 1e9;
                // Work: one mixed addition per set bit.
                let adds: u64 = refs
                    .iter()
                    .map(|b| b.iter().map(|w| u64::from(w.count_ones())).sum::<u64>())
                    .sum();
                let secs = r.device_ms as f64 * 1e-3;
                let roof = Group::G1.fraction_of_roof(adds as f64, secs);
                println!(
                    "{:>8} {:>10.3} {:>14.3} {:>10.0} {:>11.1}% {:>8.2} {:>7.0}%",
                    count,
                    r.device_ms,
                    r.with_h2d_ms,
                    gbs,
                    gbs / 4800.0 * 100.0,
                    adds as f64 / secs / 1e9,
                    roof * 100.0
                );
                rows.push(json!({
                    "table": "g1_batch_add",
                    "log_n": max_log,
                    "bitmaps": count,
                    "device_ms": r.device_ms,
                    "with_h2d_ms": r.with_h2d_ms,
                    "additions": adds,
                    "gadd_per_s": adds as f64 / secs / 1e9,
                    "fraction_of_roof": roof,
                }));
            }
            Err(e) => {
                println!("{count:>8} failed: {e}");
                rows.push(json!({
                    "table": "g1_batch_add",
                    "bitmaps": count,
                    "error": e.to_string(),
                }));
            }
        }
    }
}
