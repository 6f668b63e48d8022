//! PoRep commit phase 2 of a 2 KiB sector: cuzk beside filecoin-proofs' own
//! `seal_commit_phase2` on the same machine and inputs, then cuzk's steady state with jobs
//! kept in flight. The sector is sealed here by filecoin-proofs and the parameters generated
//! here (`cuzk_core::filecoin::generate_parameters`), so the binary needs nothing else.
//!
//! Usage: `bench_porep [--cpu] [--devices 0,1] [--workers N] [--no-reference] [--runs N]
//! [--reference-runs N] [--concurrency 1,2,4] [--timed-jobs N] [--param-cache DIR]
//! [--b-g2 auto|cpu|gpu] [--abc gpu|cpu]` (`--abc`: where a, b and c are evaluated from the
//! constraint matrices, `gpus.matrices_on_gpu`; default gpu)
//!
//! cuzk proves on the GPU when built with `cuda` and a GPU is present, on the CPU otherwise
//! or with `--cpu`. The JSON goes to `$OUT/bench_porep.json` when `OUT` is set.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cuzk_core::config::G2Placement;
use cuzk_core::filecoin::sealing::SealedSector;
use cuzk_core::filecoin::{
    generate_parameters, prover_id, CircuitKind, FilecoinJob, GenerateOptions, PoRepRequest,
};
use cuzk_core::sweep::run_point;
use cuzk_core::{CircuitProofs, Config, Engine, JobState, Priority, ProofRequest};
use filecoin_proofs_api::seal::seal_commit_phase2;
use filecoin_proofs_api::{RegisteredSealProof, SectorId};

const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const MINER: u64 = 1000;
const SECTOR: u64 = 1;

struct Options {
    cpu: bool,
    /// GPU ordinals (empty: every visible GPU).
    devices: Vec<u32>,
    /// GPU workers per device (0: the configuration's default).
    workers: usize,
    /// Skip filecoin-proofs' runs (for GPU-only sweeps).
    reference: bool,
    runs: usize,
    reference_runs: usize,
    concurrency: Vec<usize>,
    timed_jobs: usize,
    param_cache: PathBuf,
    /// Where B's G2 sum runs (`gpus.b_g2`).
    b_g2: G2Placement,
    /// Whether the GPUs evaluate a, b and c (`gpus.matrices_on_gpu`).
    abc_on_gpu: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        cpu: false,
        devices: Vec::new(),
        workers: 0,
        reference: true,
        runs: 3,
        reference_runs: 3,
        concurrency: vec![1, 2, 4],
        timed_jobs: 6,
        param_cache: std::env::temp_dir().join("cuzk-bench-porep-params"),
        b_g2: G2Placement::Auto,
        abc_on_gpu: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{v}: {e}"));
        match flag.as_str() {
            "--cpu" => o.cpu = true,
            "--no-reference" => o.reference = false,
            "--devices" => {
                o.devices = value()?
                    .split(',')
                    .map(|v| v.parse::<u32>().map_err(|e| format!("{v}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--runs" => o.runs = number(value()?)?,
            "--workers" => o.workers = number(value()?)?,
            "--reference-runs" => o.reference_runs = number(value()?)?,
            "--timed-jobs" => o.timed_jobs = number(value()?)?,
            "--param-cache" => o.param_cache = PathBuf::from(value()?),
            "--b-g2" => o.b_g2 = value()?.parse().map_err(|e| format!("{e}"))?,
            "--abc" => o.abc_on_gpu = cuzk_gpu_tests::abc_on_gpu(&value()?)?,
            "--concurrency" => {
                o.concurrency = value()?
                    .split(',')
                    .map(|v| number(v.to_string()))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(o)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_porep: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let o = options()?;
    // filecoin-proofs reads these once, at its first call.
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &o.param_cache);
    std::env::set_var(
        "FIL_PROOFS_PARENT_CACHE",
        o.param_cache.join("parent-cache"),
    );
    let mut rng = rand::thread_rng();
    let started = Instant::now();
    let sets = generate_parameters(
        &o.param_cache,
        2048,
        &[CircuitKind::PoRep],
        GenerateOptions::default(),
        &mut rand::rngs::OsRng,
    )
    .map_err(|e| e.to_string())?;
    println!(
        "parameters: {} in {:.1} s ({})",
        sets[0].path.display(),
        started.elapsed().as_secs_f64(),
        if sets[0].generated {
            "generated"
        } else {
            "cached"
        }
    );
    let sealed = SealedSector::seal(SEAL, MINER, SECTOR, &mut rng).map_err(|e| e.to_string())?;
    let c1_json = sealed.commit_phase1_json();
    let (prover, sector) = (prover_id(MINER), SectorId::from(SECTOR));
    let verify = |proof: &[u8]| sealed.verify_seal(proof);

    // filecoin-proofs: one warm-up (it loads and caches the parameters), then the timed runs.
    let mut reference = Vec::new();
    let reference_runs = if o.reference { o.reference_runs + 1 } else { 0 };
    for run in 0..reference_runs {
        let t = Instant::now();
        let out = seal_commit_phase2(sealed.commit_phase1.clone(), prover, sector)
            .map_err(|e| format!("filecoin-proofs' seal_commit_phase2: {e:#}"))?;
        let elapsed = t.elapsed();
        println!(
            "filecoin-proofs seal_commit_phase2 run {run}: {:.2} s{}",
            elapsed.as_secs_f64(),
            if run == 0 { " (warm-up)" } else { "" }
        );
        if run > 0 {
            reference.push(elapsed);
        }
        if !verify(&out.proof) {
            return Err("filecoin-proofs' own proof does not verify".into());
        }
    }

    let job = FilecoinJob::porep_c2(&PoRepRequest {
        registered_proof: 5,
        sector_size: 2048,
        c1_output: &c1_json,
        miner_id: MINER,
        sector_number: SECTOR,
    })
    .map_err(|e| e.to_string())?;
    let request = || ProofRequest {
        request_id: None,
        circuit_id: job.circuit_id.clone(),
        priority: Priority::Normal,
        work: Box::new(CircuitProofs::new(job.kind, job.partitions.clone())),
    };
    let mut config = Config::default();
    config.srs.param_cache = o.param_cache.clone();
    config.gpus.cpu_only = o.cpu;
    config.gpus.devices = o.devices.clone();
    config.gpus.b_g2 = o.b_g2;
    config.gpus.matrices_on_gpu = o.abc_on_gpu;
    if o.workers > 0 {
        config.gpus.gpu_workers_per_device = o.workers;
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let engine = Engine::start(config).map_err(|e| e.to_string())?;
        let gpus = engine.status().gpus.len();
        let backend = if gpus == 0 {
            "CPU".to_string()
        } else {
            format!("{gpus} GPU")
        };
        // The first proof loads the parameters and records the circuit's matrices.
        let t = Instant::now();
        let id = engine.submit(request()).map_err(|e| e.to_string())?.job_id;
        let first = engine
            .await_result(&id, None)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the first job was lost")?;
        if first.state != JobState::Completed {
            return Err(format!("the first proof failed: {:?}", first.error));
        }
        let proof = first.proof_bytes();
        println!(
            "cuzk ({backend}) first proof: {:.2} s (parameters loaded, matrices recorded); \
             filecoin-proofs verify_seal: {}",
            t.elapsed().as_secs_f64(),
            verify(&proof)
        );
        if !verify(&proof) {
            return Err("cuzk's proof does not verify".into());
        }

        let single = run_point(&engine, &request, 1, 1 + o.runs)
            .await
            .map_err(|e| e.to_string())?;
        println!(
            "\n2 KiB PoRep C2, one proof at a time (median): cuzk ({backend}) {:.2} s \
             (synthesis {:.2} s, prove {:.2} s)",
            single.median.total.as_secs_f64(),
            single.median.synthesis.as_secs_f64(),
            single.median.prove.as_secs_f64(),
        );
        let reference = median(reference);
        if o.reference {
            println!(
                "  filecoin-proofs seal_commit_phase2 {:.2} s: cuzk is {:.2}x faster",
                reference.as_secs_f64(),
                reference.as_secs_f64() / single.median.total.as_secs_f64().max(1e-9)
            );
        }
        let mut points = vec![single.clone()];
        println!("\nsteady state, cuzk ({backend}):\n  in flight  s/proof  proofs/s  GPU busy");
        for &c in &o.concurrency {
            let p = run_point(&engine, &request, c, c + o.timed_jobs)
                .await
                .map_err(|e| e.to_string())?;
            let busy: Vec<String> = p
                .gpu_busy
                .iter()
                .map(|b| format!("{:.0}%", b * 100.0))
                .collect();
            println!(
                "  {:>9}  {:>7.3}  {:>8.2}  {}",
                c,
                p.seconds_per_proof,
                1.0 / p.seconds_per_proof,
                busy.join(" ")
            );
            points.push(p);
        }
        if let Some(out) = std::env::var_os("OUT") {
            let json = serde_json::json!({
                "backend": backend,
                "reference_seconds": o.reference.then_some(reference.as_secs_f64()),
                "single_seconds": single.median.total.as_secs_f64(),
                "steady": points[1..].iter().map(|p| serde_json::json!({
                    "concurrency": p.concurrency,
                    "seconds_per_proof": p.seconds_per_proof,
                    "gpu_busy": p.gpu_busy,
                })).collect::<Vec<_>>(),
            });
            let path = std::path::Path::new(&out).join("bench_porep.json");
            std::fs::write(&path, json.to_string()).map_err(|e| e.to_string())?;
        }
        engine.shutdown(Duration::from_secs(600)).await;
        Ok(())
    })
}
