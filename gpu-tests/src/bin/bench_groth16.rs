//! Groth16 proof benchmark on the GPU: single-proof time after synthesis, phase by phase, for
//! `sha` at 2^20, 2^22 and 2^24 constraints and `mix` (90% bits) at 2^24, with benchmark
//! parameters (random points of the right shape, resident on the GPU). Each GPU figure is the
//! median of `RUNS` proofs after one warm-up proof; every GPU proof's bytes are compared with
//! the CPU prover's for the same (r, s) once per size (at the sizes where the CPU prover runs),
//! and the proofs of every B_G2 placement with each other.
//!
//! Usage: `bench_groth16 [--cpu-max LOG] [--b-g2 auto,cpu,gpu] [--splits auto,host,gpu]
//! [--json FILE] [kind:log ...]` (default: sha:20 sha:22 sha:24 mix:24, B_G2 and the scalar
//! splits placed automatically; with several placements of each, every pair is timed; the CPU
//! prover runs up to 2^22 unless --cpu-max says otherwise). `kind` is any test circuit name (`sha`, `mix`,
//! `mix50`). `--json` writes the table's rows to FILE as well. With `--params FILE` (one
//! circuit, parameters made by `make_params`) the proofs use those parameters instead of
//! random points, and `--proof-out FILE` writes the first placement's proof (192 bytes, for
//! the same r and s as the supraseal peer: drawn from seed 7, r first).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bellperson_lite::circuits::TestCircuit;
use bellperson_lite::generator::{BenchmarkSrs, CircuitShape};
use bellperson_lite::gpu::{
    device_params, prove_start, split_scalars, G2Placement, GpuTarget, SplitPlacement,
};
use bellperson_lite::params::read_parameters_file;
use bellperson_lite::prover::{prove_from_assignments_with_timings, PhaseTimings};
use bellperson_lite::synthesis::{synthesize_circuit, ProvingAssignment};
use bellperson_lite::ProvingKey;
use blstrs::Scalar;
use cuzk_gpu_tests::report::JsonReport;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;
use supraseal_c2::groth16::{
    self, CircuitInputs, Evaluations, GpuLocks, GpuTimings, Priority, Scalars,
};

const RUNS: usize = 3;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn synthesize(kind: &str, log: u32) -> ProvingAssignment {
    let circuit =
        TestCircuit::by_name(kind, log, 1).unwrap_or_else(|e| panic!("{kind} 2^{log}: {e}"));
    synthesize_circuit(circuit).expect("synthesis")
}

/// Where B_G2 runs and where the scalars are split, for one set of timed proofs.
type Placement = (G2Placement, SplitPlacement);

/// One circuit of the benchmark.
struct Case<'a> {
    kind: &'a str,
    log: u32,
    assignment: &'a ProvingAssignment,
    synth: Duration,
    /// Each placement of B_G2 and of the scalar splits to time.
    placements: &'a [Placement],
    cpu_max: u32,
}

/// A row of the table: case, synthesis ms, GPU proof ms, phases, CPU proof ms, whether the
/// CPU's bytes are the same, whether the parameters are resident.
type Row = (
    String,
    f64,
    f64,
    PhaseTimings,
    Option<f64>,
    Option<bool>,
    bool,
);

/// Proves `case` with `srs` on every placement, adds its rows; returns the first
/// placement's proof bytes (None when no proof was made).
fn run_case<P: ProvingKey + Send + Sync + 'static>(
    case: &Case<'_>,
    locks: &GpuLocks,
    srs: Arc<P>,
    rng: &mut ChaCha20Rng,
    rows: &mut Vec<Row>,
    failed: &mut bool,
) -> Option<Vec<u8>> {
    let Case {
        kind,
        log,
        assignment,
        synth,
        placements,
        cpu_max,
    } = *case;
    let dp = match device_params(locks, Arc::clone(&srs)) {
        Ok(dp) => dp,
        Err(e) => {
            println!("{kind} 2^{log}: device parameters failed: {e}");
            *failed = true;
            return None;
        }
    };
    let r = [Scalar::random(&mut *rng)];
    let s = [Scalar::random(&mut *rng)];
    // Per placement: the median proof time, the last run's phases and proof.
    let mut runs: Vec<(Placement, f64, PhaseTimings, Vec<u8>)> = Vec::new();
    for &placement in placements {
        let (b_g2, splits) = placement;
        let mut totals = Vec::new();
        let mut last: Option<(PhaseTimings, Vec<u8>)> = None;
        for run in 0..=RUNS {
            let input = vec![assignment.clone()];
            let t = Instant::now();
            let proved = prove_start(
                GpuTarget::new(&dp).locks(locks).b_g2(b_g2).splits(splits),
                input,
                &srs,
                &r,
                &s,
            )
            .and_then(|p| p.finish_before_release());
            match proved {
                Ok((proofs, timings, release)) => {
                    // The proof is out; the host buffers it leaves behind are freed on their
                    // own thread (GpuPending::finish_before_release), waited for here so that
                    // the next run does not start beside that.
                    if run > 0 {
                        totals.push(ms(t.elapsed()));
                    }
                    release.wait();
                    last = Some((timings, proofs[0].to_bytes().to_vec()));
                }
                Err(e) => {
                    println!("{kind} 2^{log}: GPU proof (B_G2 {placement:?}) failed: {e}");
                    *failed = true;
                    break;
                }
            }
        }
        if let Some((timings, bytes)) = last {
            runs.push((placement, median(totals), timings, bytes));
        }
    }
    let gpu_bytes = runs.first().map(|r| r.3.clone())?;
    if runs.iter().any(|r| r.3 != gpu_bytes) {
        println!("{kind} 2^{log}: the B_G2 placements gave different proofs");
        *failed = true;
    }
    // The GPU part alone (no B_G2 thread, no checks on the CPU beside it), on this
    // circuit's evaluations and on random ones of the same length (the kernels' work does
    // not depend on the values; a difference would show an effect of the data).
    let random: Vec<Scalar> = (0..assignment.a.len())
        .map(|_| Scalar::random(&mut *rng))
        .collect();
    if let Ok((l, a, b)) = split_scalars(assignment, srs.as_ref()) {
        for (label, ea, eb, ec) in [
            ("circuit data", &assignment.a, &assignment.b, &assignment.c),
            ("random data", &random, &random, &random),
        ] {
            let inputs = CircuitInputs {
                evaluations: Evaluations::Host {
                    a: ea,
                    b: eb,
                    c: ec,
                },
                scalars: Scalars::Split {
                    l: &l,
                    a_query: &a,
                    b_g1: &b,
                },
                b_g2_on_gpu: false,
            };
            let mut best: Option<(f64, GpuTimings)> = None;
            for _ in 0..=RUNS {
                let t = Instant::now();
                let Ok(Ok(batch)) =
                    groth16::start(Some(locks), &dp, &[inputs], Priority::Normal, None)
                        .map(|p| p.finish())
                else {
                    break;
                };
                let timings = batch.timings;
                let total = ms(t.elapsed());
                if best.as_ref().is_none_or(|(b, _)| total < *b) {
                    best = Some((total, timings));
                }
            }
            if let Some((total, t)) = best {
                println!(
                    "{kind} 2^{log}: GPU part alone, {label}, best of {}: {total:.1} ms (wait+upload {:.1}, NTT {:.1}, MSM h {:.1}, l {:.1}, a {:.1}, b1 {:.1})",
                    RUNS + 1,
                    t.wait_memory_ms + t.upload_ms + t.wait_compute_ms,
                    t.ntt_ms,
                    t.msm_h_ms,
                    t.msm_l_ms,
                    t.msm_a_ms,
                    t.msm_b_g1_ms
                );
            }
        }
    }
    let (cpu_ms, same) = if log <= cpu_max {
        let input = vec![assignment.clone()];
        let t = Instant::now();
        match prove_from_assignments_with_timings(input, srs.as_ref(), &r, &s) {
            Ok((proofs, _)) => (
                Some(ms(t.elapsed())),
                Some(proofs[0].to_bytes().to_vec() == gpu_bytes),
            ),
            Err(e) => {
                println!("{kind} 2^{log}: CPU proof failed: {e}");
                (None, None)
            }
        }
    } else {
        (None, None)
    };
    if same == Some(false) {
        *failed = true;
    }
    for ((b_g2, splits), total, gpu_t, _) in runs {
        // The split placement is named when forced (auto: where it went, host or gpu).
        let split_name = match (splits, gpu_t.witness_split_on_gpu) {
            (SplitPlacement::Auto, 0) => "auto:host".to_string(),
            (SplitPlacement::Auto, _) => "auto:gpu".to_string(),
            (forced, _) => format!("{forced:?}").to_lowercase(),
        };
        // So is B_G2's (auto: where the last run put it).
        let b_g2_name = match b_g2 {
            G2Placement::Auto if gpu_t.msm_b_g2_gpu.is_zero() => "auto:cpu".to_string(),
            G2Placement::Auto => "auto:gpu".to_string(),
            forced => format!("{forced:?}").to_lowercase(),
        };
        rows.push((
            format!("{kind} 2^{log} {b_g2_name} {split_name}"),
            ms(synth),
            total,
            gpu_t,
            cpu_ms,
            same,
            dp.is_resident(),
        ));
    }
    Some(gpu_bytes)
}

/// The placements a comma-separated list names (`--b-g2 auto,cpu,gpu`, `--splits
/// auto,host,gpu`); a missing list or an unknown name is an error.
fn placement_list<T>(flag: &str, list: Option<String>) -> Result<Vec<T>, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let list = list.ok_or_else(|| format!("{flag} needs a list of placements"))?;
    list.split(',')
        .map(|name| name.parse().map_err(|e| format!("{flag}: {e}")))
        .collect()
}

/// What the command line asks for.
struct Options {
    cpu_max: u32,
    placements: Vec<G2Placement>,
    split_placements: Vec<SplitPlacement>,
    cases: Vec<(String, u32)>,
    params_file: Option<std::path::PathBuf>,
    proof_out: Option<std::path::PathBuf>,
}

/// The options in `args` (without `--json`, which [`JsonReport::from_args`] takes); an
/// unknown flag, a flag without its value or a bad value is an error.
fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let mut o = Options {
        cpu_max: 22,
        placements: vec![G2Placement::Auto],
        split_placements: vec![SplitPlacement::Auto],
        cases: Vec::new(),
        params_file: None,
        proof_out: None,
    };
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--params" | "--proof-out" => {
                let path = args
                    .next()
                    .map(std::path::PathBuf::from)
                    .ok_or_else(|| format!("{a} needs a file name"))?;
                if a == "--params" {
                    o.params_file = Some(path);
                } else {
                    o.proof_out = Some(path);
                }
            }
            "--cpu-max" => {
                o.cpu_max = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--cpu-max needs a log2 size")?;
            }
            "--b-g2" => o.placements = placement_list(&a, args.next())?,
            "--splits" => o.split_placements = placement_list(&a, args.next())?,
            _ => match a
                .split_once(':')
                .and_then(|(k, l)| Some((k, l.parse().ok()?)))
            {
                Some((k, l)) if TestCircuit::by_name(k, l, 0).is_ok() => {
                    o.cases.push((k.to_string(), l))
                }
                _ => {
                    return Err(format!(
                        "unknown argument {a:?} (expected NAME:LOG, NAME a test circuit)"
                    ))
                }
            },
        }
    }
    if o.params_file.is_some() && o.cases.len() != 1 {
        return Err("--params FILE takes exactly one KIND:LOG, the circuit the file is for".into());
    }
    if o.cases.is_empty() {
        o.cases = vec![
            ("sha".into(), 20),
            ("sha".into(), 22),
            ("sha".into(), 24),
            ("mix".into(), 24),
        ];
    }
    Ok(o)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let Ok(report) = JsonReport::from_args(&mut args).inspect_err(|e| eprintln!("{e}")) else {
        return ExitCode::FAILURE;
    };
    let Options {
        cpu_max,
        placements,
        split_placements,
        cases,
        params_file,
        proof_out,
    } = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let locks = match GpuLocks::new(0, None) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("no GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let combined: Vec<Placement> = placements
        .iter()
        .flat_map(|&b| split_placements.iter().map(move |&s| (b, s)))
        .collect();
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut rows = Vec::new();
    let mut failed = false;
    for (kind, log) in &cases {
        let t = Instant::now();
        let assignment = synthesize(kind, *log);
        let synth = t.elapsed();
        let case = Case {
            kind,
            log: *log,
            assignment: &assignment,
            synth,
            placements: &combined,
            cpu_max,
        };
        match &params_file {
            Some(path) => match read_parameters_file(path, false) {
                Ok(params) => {
                    let params = Arc::new(params);
                    let bytes = run_case(&case, &locks, params, &mut rng, &mut rows, &mut failed);
                    if let (Some(out), Some(bytes)) = (&proof_out, bytes) {
                        if let Err(e) = std::fs::write(out, bytes) {
                            eprintln!("cannot write {}: {e}", out.display());
                            failed = true;
                        }
                    }
                }
                Err(e) => {
                    println!("{kind} 2^{log}: {}: {e}", path.display());
                    failed = true;
                }
            },
            None => {
                let srs = Arc::new(
                    BenchmarkSrs::new(CircuitShape::of(&assignment), &mut rng).expect("SRS"),
                );
                run_case(&case, &locks, srs, &mut rng, &mut rows, &mut failed);
            }
        }
    }

    println!();
    println!("Groth16, one proof after synthesis: GPU median of {RUNS} after a warm-up (ms), phases of the last run; circuit, size, B_G2 placement and where the scalars were split");
    println!(
        "{:>28} {:>8} {:>9} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>10} {:>6} {:>8}",
        "circuit", "synth", "GPU proof", "prep", "upload", "NTT", "MSM h", "MSM l", "MSM a", "MSM b1", "B_G2", "asm", "CPU proof", "same", "resident"
    );
    let mut json_rows = Vec::new();
    for (case, synth, total, t, cpu, same, resident) in rows {
        json_rows.push(json!({
            "case": case,
            "synthesis_ms": synth,
            "gpu_proof_ms": total,
            "prep_ms": ms(t.prep),
            "witness_split_on_gpu": t.witness_split_on_gpu,
            "upload_ms": ms(t.upload),
            "ntt_ms": ms(t.ntt),
            "msm_h_ms": ms(t.msm_h),
            "msm_l_ms": ms(t.msm_l),
            "msm_a_ms": ms(t.msm_a),
            "msm_b_g1_ms": ms(t.msm_b_g1),
            "msm_b_g2_ms": ms(t.msm_b_g2),
            "assembly_ms": ms(t.assembly),
            "gpu_kernels_ms": ms(t.gpu_kernels()),
            // Where the rest of the proof's time goes: the library's set-up, the wait on the
            // device before the first kernel, the copies back, the compute lock.
            "gpu_setup_ms": ms(t.gpu_setup),
            "gpu_queued_ms": ms(t.gpu_queued),
            "gpu_results_ms": ms(t.gpu_results),
            "wait_compute_ms": ms(t.wait_compute),
            "wait_memory_ms": ms(t.wait_memory),
            "last_run_total_ms": ms(t.total),
            "cpu_proof_ms": cpu,
            "same_as_cpu": same,
            "resident": resident,
        }));
        println!(
            "{:>28} {:>8.0} {:>9.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>10} {:>6} {:>8}",
            case,
            synth,
            total,
            ms(t.prep),
            ms(t.upload),
            ms(t.ntt),
            ms(t.msm_h),
            ms(t.msm_l),
            ms(t.msm_a),
            ms(t.msm_b_g1),
            ms(t.msm_b_g2),
            ms(t.assembly),
            cpu.map_or("-".into(), |c| format!("{c:.0}")),
            same.map_or("-", |s| if s { "yes" } else { "NO" }),
            resident
        );
    }
    failed |=
        !report.write(&json!({ "benchmark": "bench_groth16", "runs": RUNS, "rows": json_rows }));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
