//! supraseal-peer: supraseal's Groth16 prover (bellperson 0.27, `cuda-supraseal`) on cuzk's
//! test circuits and on parameters made by cuzk's `make_params`, with r and s drawn as
//! `bench_groth16 --params` draws them (seed 7, r first), so that the two provers run in one
//! call on the same card and their proofs can be compared byte for byte.
//!
//! Usage: `supraseal-peer --params FILE --circuit KIND:LOG [--runs N] [--json FILE]
//! [--proof-out FILE]`
//!
//! Each run is one `create_proof_batch` of one circuit: bellperson synthesizes it, then
//! supraseal proves it on the GPU. Printed per run and as medians of the runs after a warm-up:
//! the synthesis and the prover time as bellperson logs them ("synthesis time", "prover
//! time"), and the whole call.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bellperson::groth16::{create_proof_batch, SuprasealParameters};
use bellperson_lite::circuits::TestCircuit;
use blstrs::{Bls12, Scalar};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

mod timings;

struct Options {
    params: PathBuf,
    kind: String,
    log: u32,
    runs: usize,
    json: Option<PathBuf>,
    proof_out: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let (mut params, mut circuit, mut runs, mut json, mut proof_out) = (None, None, 3, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--params" => params = Some(PathBuf::from(value()?)),
            "--circuit" => circuit = Some(value()?),
            "--runs" => runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--json" => json = Some(PathBuf::from(value()?)),
            "--proof-out" => proof_out = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let circuit = circuit.ok_or("--circuit KIND:LOG is required")?;
    let (kind, log) = circuit
        .split_once(':')
        .ok_or(format!("--circuit {circuit:?}: expected KIND:LOG"))?;
    Ok(Options {
        params: params.ok_or("--params FILE is required")?,
        kind: kind.to_string(),
        log: log
            .parse()
            .map_err(|e| format!("--circuit {circuit:?}: {e}"))?,
        runs: runs.max(1),
        json,
        proof_out,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("supraseal-peer: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let o = options().map_err(|e| {
        format!("{e}\nusage: supraseal-peer --params FILE --circuit KIND:LOG [--runs N] [--json FILE] [--proof-out FILE]")
    })?;
    timings::install();
    let circuit = || {
        TestCircuit::by_name(&o.kind, o.log, 1).map_err(|e| format!("{}:{}: {e}", o.kind, o.log))
    };
    circuit()?;
    let loaded = Instant::now();
    let params = SuprasealParameters::<Bls12>::new(o.params.clone())
        .map_err(|e| format!("{}: {e}", o.params.display()))?;
    println!(
        "{}:{}: supraseal parameters from {} in {:.1} s",
        o.kind,
        o.log,
        o.params.display(),
        loaded.elapsed().as_secs_f64()
    );
    // As bench_groth16 --params draws them.
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let r = Scalar::random(&mut rng);
    let s = Scalar::random(&mut rng);

    let (mut totals, mut provers, mut syntheses) = (Vec::new(), Vec::new(), Vec::new());
    let mut proof_bytes = Vec::new();
    for run in 0..=o.runs {
        let c = circuit()?;
        timings::clear();
        let started = Instant::now();
        let proofs = create_proof_batch(vec![c], &params, vec![r], vec![s])
            .map_err(|e| format!("{}:{}: proof failed: {e}", o.kind, o.log))?;
        let total = started.elapsed();
        let seen = timings::take();
        proof_bytes.clear();
        proofs[0]
            .write(&mut proof_bytes)
            .map_err(|e| format!("encoding the proof: {e}"))?;
        println!(
            "run {run}{}: total {:.1} ms, synthesis {} ms, prover {} ms",
            if run == 0 { " (warm-up)" } else { "" },
            ms(total),
            seen.synthesis
                .map_or("?".into(), |d| format!("{:.1}", ms(d))),
            seen.prover.map_or("?".into(), |d| format!("{:.1}", ms(d))),
        );
        if run > 0 {
            totals.push(ms(total));
            if let (Some(p), Some(sy)) = (seen.prover, seen.synthesis) {
                provers.push(ms(p));
                syntheses.push(ms(sy));
            }
        }
    }
    let row = json!({
        "prover": "supraseal (bellperson 0.27.0, cuda-supraseal)",
        "circuit": format!("{}:{}", o.kind, o.log),
        "runs": o.runs,
        "total_ms": median(totals.clone()),
        "prover_ms": (!provers.is_empty()).then(|| median(provers.clone())),
        "synthesis_ms": (!syntheses.is_empty()).then(|| median(syntheses.clone())),
    });
    println!(
        "{}:{}: median of {} after a warm-up: total {:.1} ms, prover (after synthesis) {} ms",
        o.kind,
        o.log,
        o.runs,
        median(totals),
        row["prover_ms"]
    );
    if let Some(path) = &o.proof_out {
        std::fs::write(path, &proof_bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &o.json {
        let text = serde_json::to_string_pretty(&row).map_err(|e| e.to_string())? + "\n";
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
