//! `cargo xtask bench-phases`: per-phase timings of our prover, and bellperson's prover on the
//! same circuits, parameters and randomness, with the ratio.
//!
//! Parameters are a [`BenchmarkSrs`] (valid points, no setup) so that large sizes do not wait
//! for a setup; bellperson gets the very same points. Both provers must produce the same proof
//! bytes, which is checked on every run.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};
use bellpepper_core::Circuit;
use bellperson_lite::circuits::{MixCircuit, ShaCircuit};
use bellperson_lite::generator::{BenchmarkSrs, CircuitShape};
use bellperson_lite::prover::{create_proof_batch_with_timings, PhaseTimings};
use bellperson_lite::synthesis::synthesize_circuit;
use bellperson_lite::{Bls12, ProvingKey, Scalar};
use blstrs::{G1Projective, G2Projective};
use ff::Field;
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::stats::{ms, print_table, Summary};
use crate::Options;

pub fn run(options: &Options) -> Result<()> {
    let backend = options.string("backend", "cpu");
    if backend != "cpu" {
        bail!("backend `{backend}` is not available: this build has the cpu backend only");
    }
    let circuit_name = options.string("circuit", "sha");
    let (lo, hi) = options.range("sizes", (16, 20))?;
    let runs: usize = options.number("runs", 3)?;
    ensure!(runs > 0, "--runs must be at least 1");
    let reference = !options.flag("no-reference");
    println!(
        "bench-phases: backend {backend}, circuit {circuit_name}, sizes 2^{lo}..2^{hi}, {runs} runs, \
         {} threads, reference {}",
        rayon::current_num_threads(),
        if reference { "bellperson 0.27 (CPU)" } else { "off" }
    );

    let mut summary = Vec::new();
    for log_size in lo..=hi {
        let row = match circuit_name.as_str() {
            "sha" => bench_size(ShaCircuit::try_new(log_size, 1)?, log_size, runs, reference)?,
            "mix" => bench_size(
                MixCircuit::try_new(log_size, MixCircuit::DEFAULT_BIT_FRACTION, 1)?,
                log_size,
                runs,
                reference,
            )?,
            other => bail!("unknown circuit `{other}` (sha or mix)"),
        };
        summary.push(row);
    }

    println!("\nsummary ({circuit_name}, median total per proof)");
    println!(
        "  {:<6} {:>12} {:>16} {:>8}",
        "size", "cuzk ms", "bellperson ms", "ratio"
    );
    for (log_size, ours, theirs) in summary {
        match theirs {
            Some(theirs) => println!(
                "  2^{:<4} {:>12} {:>16} {:>7.2}x",
                log_size,
                ms(ours),
                ms(theirs),
                theirs.as_secs_f64() / ours.as_secs_f64()
            ),
            None => println!(
                "  2^{:<4} {:>12} {:>16} {:>8}",
                log_size,
                ms(ours),
                "-",
                "-"
            ),
        }
    }
    Ok(())
}

/// Benchmarks one size; returns `(log_size, our median, bellperson's median)`.
fn bench_size<C>(
    circuit: C,
    log_size: u32,
    runs: usize,
    reference: bool,
) -> Result<(u32, Duration, Option<Duration>)>
where
    C: Circuit<Scalar> + Clone + Send,
{
    let mut rng = ChaCha20Rng::seed_from_u64(log_size as u64);
    let start = Instant::now();
    let shape = CircuitShape::of(&synthesize_circuit(circuit.clone())?);
    let srs = BenchmarkSrs::new(shape, &mut rng)?;
    println!(
        "\n2^{log_size}: benchmark SRS ({} MiB) made in {} ms",
        srs.size_bytes() >> 20,
        ms(start.elapsed())
    );
    let reference_params = reference.then(|| to_bellperson(&srs, &mut rng));

    let mut ours: Vec<PhaseTimings> = Vec::new();
    let mut theirs: Vec<Duration> = Vec::new();
    for run in 0..runs {
        let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let (proofs, timings) =
            create_proof_batch_with_timings(vec![circuit.clone()], &srs, &[r], &[s])?;
        ours.push(timings);
        if let Some(params) = &reference_params {
            let start = Instant::now();
            let proof = bellperson::groth16::create_proof(circuit.clone(), params, r, s)?;
            theirs.push(start.elapsed());
            let mut bytes = Vec::new();
            proof.write(&mut bytes)?;
            ensure!(
                bytes == proofs[0].to_bytes(),
                "2^{log_size} run {run}: bellperson's proof bytes differ from ours"
            );
        }
    }
    let mut rows = phase_rows(&ours);
    if !theirs.is_empty() {
        rows.push(("bellperson", theirs.clone()));
    }
    print_table(
        &format!("2^{log_size} per-phase timings, {runs} runs"),
        &rows,
    );
    let our_median = Summary::of(&ours.iter().map(|t| t.total).collect::<Vec<_>>())
        .map(|s| s.median)
        .unwrap_or_default();
    let their_median = Summary::of(&theirs).map(|s| s.median);
    if let Some(t) = their_median {
        println!(
            "  bellperson / cuzk: {:.2}x (proof bytes identical in every run)",
            t.as_secs_f64() / our_median.as_secs_f64()
        );
    }
    Ok((log_size, our_median, their_median))
}

/// The same points as a bellperson parameter set. `gamma_g2` and `ic` are not used by the
/// prover and are filled with arbitrary points.
fn to_bellperson(
    srs: &BenchmarkSrs,
    rng: &mut ChaCha20Rng,
) -> bellperson::groth16::Parameters<Bls12> {
    let vk = bellperson::groth16::VerifyingKey::<Bls12> {
        alpha_g1: *srs.alpha_g1(),
        beta_g1: *srs.beta_g1(),
        beta_g2: *srs.beta_g2(),
        gamma_g2: G2Projective::random(&mut *rng).to_affine(),
        delta_g1: *srs.delta_g1(),
        delta_g2: *srs.delta_g2(),
        ic: (0..srs.num_inputs())
            .map(|_| G1Projective::random(&mut *rng).to_affine())
            .collect(),
    };
    bellperson::groth16::Parameters {
        vk,
        h: Arc::new(srs.h().to_vec()),
        l: Arc::new(srs.l().to_vec()),
        a: Arc::new(srs.a().to_vec()),
        b_g1: Arc::new(srs.b_g1().to_vec()),
        b_g2: Arc::new(srs.b_g2().to_vec()),
    }
}

/// The rows of a per-phase table, one sample per proof.
pub fn phase_rows(timings: &[PhaseTimings]) -> Vec<(&'static str, Vec<std::time::Duration>)> {
    let col = |f: fn(&PhaseTimings) -> std::time::Duration| timings.iter().map(f).collect();
    vec![
        ("synthesis", col(|t| t.synthesis)),
        ("H (NTT)", col(|t| t.ntt)),
        ("MSM h", col(|t| t.msm_h)),
        ("MSM l", col(|t| t.msm_l)),
        ("MSM a", col(|t| t.msm_a)),
        ("MSM b_g1", col(|t| t.msm_b_g1)),
        ("MSM b_g2", col(|t| t.msm_b_g2)),
        ("assembly", col(|t| t.assembly)),
        ("total", col(|t| t.total)),
    ]
}
