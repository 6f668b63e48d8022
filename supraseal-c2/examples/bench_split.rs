//! Times `MsmSplit::build`, the CPU preparation of a GPU proof's split MSMs, on two witnesses of
//! 2^LOG scalars (default 24): a dense one (80% full-width values, as WindowPoSt's) and one of
//! bits (Filecoin's usual witness): one split, and a proof's three (L whole, A and B through
//! densities of a half and three quarters) over classes made once. Five runs each; the first
//! touches fresh memory.
//!
//! `cargo run --release -p supraseal-c2 --example bench_split [LOG]`

use blstrs::Scalar;
use ff::Field;
use std::process::ExitCode;
use std::time::Instant;
use supraseal_c2::split::{MsmSplit, ScalarClasses, ScalarPart};

fn main() -> ExitCode {
    let log = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => 24,
        Some(Ok(log)) if (1..=30).contains(&log) => log,
        Some(_) => {
            eprintln!("usage: bench_split [LOG], LOG in 1..=30 (2^LOG scalars; default 24)");
            return ExitCode::FAILURE;
        }
    };
    let n = 1usize << log;
    // xorshift: reproducible values, no RNG crate needed here.
    let mut x = 0x1234_5678_9abc_def0u64;
    let dense: Vec<Scalar> = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 10 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => Scalar::from(x) * Scalar::from(x | 1),
            }
        })
        .collect();
    let bits: Vec<Scalar> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                Scalar::ONE
            } else {
                Scalar::ZERO
            }
        })
        .collect();
    // Two densities over the aux values, as A's and B's (every second, and three in four).
    let words = n.div_ceil(64);
    let (half, most) = (
        vec![0x5555_5555_5555_5555u64; words],
        vec![0x7777_7777_7777_7777u64; words],
    );
    println!("{} threads", rayon::current_num_threads());
    for (name, scalars) in [("dense", &dense), ("bits", &bits)] {
        for _ in 0..5 {
            let start = Instant::now();
            let part = ScalarPart {
                scalars,
                density: None,
                classes: None,
            };
            let split = match MsmSplit::build(n, &[part]) {
                Ok(split) => split,
                Err(e) => {
                    eprintln!("split of 2^{log} scalars: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let one = start.elapsed();
            // A proof's three splits of the same aux values (L whole, A and B by density),
            // their classes made once.
            let start = Instant::now();
            let classes = ScalarClasses::of(scalars);
            let mut others = 0;
            for density in [None, Some(&half[..]), Some(&most[..])] {
                let part = ScalarPart {
                    scalars,
                    density,
                    classes: Some(&classes),
                };
                let len = density.map_or(n, |d| d.iter().map(|w| w.count_ones() as usize).sum());
                match MsmSplit::build(len, &[part]) {
                    Ok(s) => others += s.other_index.len(),
                    Err(e) => {
                        eprintln!("split of 2^{log} scalars: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            println!(
                "{name} 2^{log}: one split {:.1} ms ({} others, {} ones); three, classes shared, {:.1} ms ({others} others)",
                one.as_secs_f64() * 1e3,
                split.other_index.len(),
                split.ones_count(),
                start.elapsed().as_secs_f64() * 1e3,
            );
        }
    }
    ExitCode::SUCCESS
}
