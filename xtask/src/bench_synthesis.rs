//! `cargo xtask bench-synthesis`: full synthesis against witness generation plus the three
//! sparse products over matrices recorded once (`bellperson_lite::matrices`), per circuit and
//! in aggregate with every core busy. Every fast assignment is compared with the full one.

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};
use bellpepper_core::Circuit;
use bellperson_lite::circuits::{MixCircuit, ShaCircuit};
use bellperson_lite::matrices::{record_matrices, synthesize_witness, ConstraintMatrices};
use bellperson_lite::synthesis::synthesize_circuit;
use bellperson_lite::Scalar;
use rayon::prelude::*;

use crate::stats::{ms, print_table};
use crate::Options;

pub fn run(options: &Options) -> Result<()> {
    let circuit_name = options.string("circuit", "sha");
    let (lo, hi) = options.range("sizes", (16, 20))?;
    let runs: usize = options.number("runs", 3)?;
    ensure!(runs > 0, "--runs must be at least 1");
    let threads = rayon::current_num_threads();
    println!(
        "bench-synthesis: circuit {circuit_name}, sizes 2^{lo}..2^{hi}, {runs} runs, {threads} threads"
    );
    for log_size in lo..=hi {
        match circuit_name.as_str() {
            "sha" => bench_size(|seed| ShaCircuit::try_new(log_size, seed), log_size, runs)?,
            // A mix circuit's shape depends on its seed: every run uses seed 1.
            "mix" => bench_size(
                |_| MixCircuit::try_new(log_size, MixCircuit::DEFAULT_BIT_FRACTION, 1),
                log_size,
                runs,
            )?,
            other => bail!("unknown circuit `{other}` (sha or mix)"),
        }
    }
    Ok(())
}

fn fast<C: Circuit<Scalar>>(
    m: &ConstraintMatrices,
    c: C,
) -> Result<bellperson_lite::synthesis::ProvingAssignment> {
    Ok(m.assignment(synthesize_witness(c)?)?)
}

fn bench_size<C, E>(make: impl Fn(u64) -> Result<C, E>, log_size: u32, runs: usize) -> Result<()>
where
    C: Circuit<Scalar> + Clone + Send + Sync,
    E: std::error::Error + Send + Sync + 'static,
{
    let start = Instant::now();
    let matrices = record_matrices(make(0)?)?;
    let record = start.elapsed();
    let terms = matrices.a.terms() + matrices.b.terms() + matrices.c.terms();
    println!(
        "\n2^{log_size}: matrices recorded in {} ms ({} constraints, {} terms, {} distinct coefficients)",
        ms(record),
        matrices.num_constraints(),
        terms,
        matrices.coeff_table.len()
    );

    // One circuit at a time (the products use every core; full synthesis uses one).
    let (mut full, mut witness, mut products) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let c = make(run as u64 + 1)?;
        let t = Instant::now();
        let reference = synthesize_circuit(c.clone())?;
        full.push(t.elapsed());
        let t = Instant::now();
        let w = synthesize_witness(c)?;
        witness.push(t.elapsed());
        let t = Instant::now();
        let assignment = matrices.assignment(w)?;
        products.push(t.elapsed());
        ensure!(
            assignment == reference,
            "2^{log_size} run {run}: the fast assignment differs from full synthesis"
        );
    }
    let fast_total: Vec<Duration> = witness
        .iter()
        .zip(&products)
        .map(|(w, p)| *w + *p)
        .collect();
    print_table(
        &format!("2^{log_size}, one circuit at a time, {runs} runs"),
        &[
            ("full synthesis", full),
            ("witness", witness),
            ("products", products),
            ("witness+products", fast_total),
        ],
    );

    // Aggregate: as many circuits as threads at once.
    let n = rayon::current_num_threads();
    let circuits: Vec<C> = (0..n)
        .map(|i| make(100 + i as u64))
        .collect::<Result<_, _>>()?;
    let full_time = time_all(&circuits, |c| Ok(synthesize_circuit(c)?))?;
    // The witness alone: what synthesis leaves to the CPU when the GPU evaluates a, b, c
    // from its resident matrices (the engine's default on a GPU).
    let witness_time = time_all(&circuits, |c| Ok(synthesize_witness(c)?))?;
    let fast_time = time_all(&circuits, |c| fast(&matrices, c))?;
    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    let speedup = |d: Duration| full_time.as_secs_f64() / d.as_secs_f64();
    println!(
        "  aggregate, {n} circuits at once: full {} ms ({:.2} circuits/s); \
         witness+products {} ms ({:.2} circuits/s, {:.2}x); \
         witness only {} ms ({:.2} circuits/s, {:.2}x)",
        ms(full_time),
        rate(full_time),
        ms(fast_time),
        rate(fast_time),
        speedup(fast_time),
        ms(witness_time),
        rate(witness_time),
        speedup(witness_time),
    );
    Ok(())
}

/// The time `f` takes over all `circuits` at once (one per thread); the results are dropped
/// after the clock stops, so freeing them is not timed.
fn time_all<C, T>(circuits: &[C], f: impl Fn(C) -> Result<T> + Sync) -> Result<Duration>
where
    C: Clone + Send + Sync,
    T: Send,
{
    let t = Instant::now();
    let results: Vec<T> = circuits
        .to_vec()
        .into_par_iter()
        .map(&f)
        .collect::<Result<_>>()?;
    let took = t.elapsed();
    drop(results);
    Ok(took)
}
