//! MSM and batch-addition benchmark on the GPU: G1 MSM with random 255-bit scalars at 2^20,
//! 2^22, 2^24 and 2^26 points, batch addition of 2^26 points with half the bits set (one
//! bitmap, and four at once), and G2 MSM at 2^20 and 2^24 points. Each figure is the median of several runs after warm-up, timed
//! with CUDA events, on inputs already on the device and including their host-to-device copy.
//!
//! Inputs: distinct pseudo-random points (built in parallel; a few points tiled to the size
//! would stay in the GPU's L2 cache and flatter the bucket sums, whose point reads are
//! scattered over the whole vector) and random scalars below r from a splitmix64 stream.
//!
//! Usage: `bench_msm [log_n ...] [g2:log_n ...]` (default: 20 22 24 26 g2:20 g2:24; batch
//! addition at the largest G1 size; no G2 MSM unless asked when G1 sizes are given).

use std::process::ExitCode;

use blstrs::{G1Affine, Scalar};
use cuzk_gpu_tests::points::{distinct_points, distinct_points_g2};
use supraseal_c2::msm::{bench_batch_add_g1, bench_msm_g1, bench_msm_g2, MsmBench};

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

/// One row of an MSM table: `point_bytes` is the size of one affine point.
fn msm_row(log_n: u32, r: &MsmBench, point_bytes: f64) -> String {
    let n = (1usize << log_n) as f64;
    // Work: n mixed additions into buckets per window. Bytes: the points and scalars read
    // once (a floor; each window reads them again).
    let adds = n * r.windows as f64;
    let bytes = n * (point_bytes + 32.0);
    let secs = r.device_ms as f64 * 1e-3;
    format!(
        "{:>6} {:>9.2} {:>12.2} {:>8.2} {:>8.2} {:>8.2} {:>9} {:>10.2} {:>8.1}",
        format!("2^{log_n}"),
        r.device_ms,
        r.with_h2d_ms,
        r.sort_ms,
        r.bucket_ms,
        r.reduce_ms,
        format!("{}x{}", r.window_bits, r.windows),
        adds / secs / 1e9,
        bytes / secs / 1e9
    )
}

const MSM_HEADER: [&str; 9] = [
    "size",
    "MSM ms",
    "H2D+MSM ms",
    "sort",
    "buckets",
    "reduce",
    "c x W",
    "Gadd/s",
    "GB/s",
];

fn print_header() {
    let h = MSM_HEADER;
    println!(
        "{:>6} {:>9} {:>12} {:>8} {:>8} {:>8} {:>9} {:>10} {:>8}",
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut sizes: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let mut g2_sizes: Vec<u32> = args
        .iter()
        .filter_map(|a| a.strip_prefix("g2:").and_then(|l| l.parse().ok()))
        .collect();
    if sizes.is_empty() && g2_sizes.is_empty() {
        sizes = vec![20, 22, 24, 26];
        g2_sizes = vec![20, 24];
    }
    let mut failed = false;
    if !sizes.is_empty() {
        failed |= bench_g1(&sizes);
    }
    if !g2_sizes.is_empty() {
        failed |= bench_g2(&g2_sizes);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The G2 MSM table; returns whether a size failed.
fn bench_g2(sizes: &[u32]) -> bool {
    let n_max = 1usize << *sizes.iter().max().unwrap();
    let points = distinct_points_g2(2, n_max);
    let scalars = random_scalars(&mut SplitMix(0x9e2), n_max);
    let mut failed = false;
    println!();
    println!("G2 MSM (BLS12-381), random 255-bit scalars, median after warm-up, CUDA events");
    print_header();
    for &log_n in sizes {
        let n = 1usize << log_n;
        let (warmup, iters) = if log_n >= 24 { (1, 3) } else { (2, 7) };
        match bench_msm_g2(&points[..n], &scalars[..n], warmup, iters) {
            Ok(r) => println!("{}", msm_row(log_n, &r, 192.0)),
            Err(e) => {
                println!("{:>6} failed: {e}", format!("2^{log_n}"));
                failed = true;
            }
        }
    }
    failed
}

/// The G1 MSM and batch-addition tables; returns whether a size failed.
fn bench_g1(sizes: &[u32]) -> bool {
    let max_log = *sizes.iter().max().unwrap();
    let n_max = 1usize << max_log;

    let points: Vec<G1Affine> = distinct_points(1, n_max);
    let mut sm = SplitMix(0x5eed);
    let scalars = random_scalars(&mut sm, n_max);

    let mut failed = false;
    println!("G1 MSM (BLS12-381), random 255-bit scalars, median after warm-up, CUDA events");
    print_header();
    for &log_n in sizes {
        let n = 1usize << log_n;
        let (warmup, iters) = if log_n >= 25 { (1, 3) } else { (2, 7) };
        match bench_msm_g1(&points[..n], &scalars[..n], warmup, iters) {
            Ok(r) => println!("{}", msm_row(log_n, &r, 96.0)),
            Err(e) => {
                println!("{:>6} failed: {e}", format!("2^{log_n}"));
                failed = true;
            }
        }
    }

    // Every scalar equal: each window's points all fall in one bucket, the worst case for the
    // bucket sums (up to 2^24: beyond it the rows take long when the grouping regresses).
    println!();
    println!("G1 MSM, every scalar equal (one bucket per window), median after warm-up");
    print_header();
    let same = vec![scalars[0]; n_max.min(1 << 24)];
    for &log_n in sizes.iter().filter(|&&l| l <= 24) {
        let n = 1usize << log_n;
        match bench_msm_g1(&points[..n], &same[..n], 1, 3) {
            Ok(r) => println!("{}", msm_row(log_n, &r, 96.0)),
            Err(e) => {
                println!("{:>6} failed: {e}", format!("2^{log_n}"));
                failed = true;
            }
        }
    }

    // Batch addition: half the bits set at random, one bitmap and four bitmaps.
    let words = n_max.div_ceil(64);
    let bitmaps: Vec<Vec<u64>> = (0..4)
        .map(|_| (0..words).map(|_| sm.next()).collect())
        .collect();
    println!();
    println!("G1 batch addition, 2^{max_log} points, half the bits set, median after warm-up");
    println!(
        "{:>8} {:>10} {:>14} {:>10} {:>12} {:>8}",
        "bitmaps", "ms", "H2D+add ms", "GB/s", "of 4.8 TB/s", "Gadd/s"
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
                println!(
                    "{:>8} {:>10.3} {:>14.3} {:>10.0} {:>11.1}% {:>8.2}",
                    count,
                    r.device_ms,
                    r.with_h2d_ms,
                    gbs,
                    gbs / 4800.0 * 100.0,
                    adds as f64 / (r.device_ms as f64 * 1e-3) / 1e9
                );
            }
            Err(e) => {
                println!("{count:>8} failed: {e}");
                failed = true;
            }
        }
    }
    failed
}
