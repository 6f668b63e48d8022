//! `cuzk bench`: an operator's benchmark of their own machine, on Filecoin's real circuits at
//! any sector size, without a sealed sector.
//!
//! It makes a synthetic input (`cuzk_core::filecoin::synthetic`) or reads one (a commit-phase-1
//! output, or a request file from `cuzk synth`), checks it and builds its circuits as the
//! daemon does at submission, finds the parameters (or generates them, with
//! `--generate-params`), starts the engine from the same configuration file as `cuzk serve`,
//! and measures: the first proof (parameters loaded, matrices recorded), then for each
//! number of jobs in flight the sustained seconds per proof, the phases per partition, peak
//! RSS, peak VRAM and GPU busy. A progress line on stderr says how far it is.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cuzk_core::filecoin::synthetic::{self, SynthOptions};
use cuzk_core::filecoin::{
    generate_parameters, parse_sector_size, CircuitKind, FilecoinJob, GenerateOptions,
};
use cuzk_core::sweep::{run_point, SweepPoint};
use cuzk_core::{CircuitProofs, Engine, Priority, ProofRequest};

use crate::config::DaemonConfig;
use crate::proto;

/// Spans kept in the timeline: eight per partition on a GPU.
const TIMELINE_SPANS: usize = 200_000;

/// What `cuzk bench` was asked for.
pub struct BenchArgs {
    /// porep, winning-post, window-post or snap.
    pub kind: String,
    pub sector_size: String,
    /// A commit-phase-1 output (porep) or a request file (`cuzk synth`'s PoSt output) to
    /// prove instead of a synthetic input made here.
    pub input: Option<PathBuf>,
    /// PoRep from `input`: the sector's miner and number (its replica id hashes them).
    pub miner_id: u64,
    pub sector_number: u64,
    pub config: Option<PathBuf>,
    /// Overrides the configuration's `srs.param_cache`.
    pub param_cache: Option<PathBuf>,
    /// Generate missing parameters (random ones: never for a network).
    pub generate_params: bool,
    /// Jobs in flight, one measured point each.
    pub in_flight: Vec<usize>,
    /// Timed jobs per point (at least the jobs in flight).
    pub jobs: Option<usize>,
    pub json: Option<PathBuf>,
    pub timeline: Option<PathBuf>,
    pub seed: u64,
    /// A second kind (synthetic, same sector size) submitted at CRITICAL priority every
    /// `probe_every` while each point runs: its latency under the main kind's load.
    pub probe: Option<String>,
    pub probe_every: Duration,
}

/// `cuzk bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    let sector_size = parse_sector_size(&args.sector_size)?;
    if args.in_flight.is_empty() || args.in_flight.contains(&0) {
        bail!("--in-flight takes one or more positive numbers of jobs, e.g. 1,2,4");
    }
    let most = args.in_flight.iter().copied().max().unwrap_or(1);
    let timed = args.jobs.unwrap_or(most);
    if timed < most {
        bail!(
            "--jobs {timed} is fewer than the {most} kept in flight: the steady state would be \
             timed on proofs made during the warm-up"
        );
    }
    let mut daemon = match args
        .config
        .clone()
        .or_else(crate::config::default_config_path)
    {
        Some(path) => DaemonConfig::from_file(&path)?,
        None => DaemonConfig::default(),
    };
    // The folder `cuzk serve` proves from with this configuration: random production-size
    // parameters must not land there.
    let configured = daemon.engine.param_cache();
    if let Some(folder) = &args.param_cache {
        daemon.engine.srs.param_cache = folder.clone();
    }
    let config = daemon.engine;
    let kind = crate::synth::parse_kind(&args.kind)?;

    let started = Instant::now();
    let request = bench_request(kind, args.input.as_deref(), args, sector_size)?;
    println!(
        "input: {} ({} bytes, {:.1} s)",
        match &args.input {
            Some(path) => path.display().to_string(),
            None => format!(
                "synthetic {} sector(s), seed {}",
                args.sector_size, args.seed
            ),
        },
        request.vanilla_proof.len() + request.vanilla_proofs.iter().map(Vec::len).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    let checked = Instant::now();
    let job = checked_job(&request, kind, sector_size)?;
    println!(
        "{}: {} partition(s), vanilla proofs verified and circuits built in {:.1} s",
        job.circuit_id,
        job.partitions.len(),
        checked.elapsed().as_secs_f64()
    );
    let folder = config.param_cache();
    ensure_parameters(kind, args, &folder, &configured, sector_size)?;
    let probe = match &args.probe {
        Some(name) => {
            let kind = crate::synth::parse_kind(name)?;
            let request = bench_request(kind, None, args, sector_size)?;
            let job = checked_job(&request, kind, sector_size)?;
            ensure_parameters(kind, args, &folder, &configured, sector_size)?;
            println!(
                "probe: {} ({} partition(s)) at CRITICAL every {:.0} s during each point",
                job.circuit_id,
                job.partitions.len(),
                args.probe_every.as_secs_f64()
            );
            Some(job)
        }
        None => None,
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(measure(args, config, job, probe, timed))?;
    println!("{}", report.table());
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_vec_pretty(&report.json(args))?)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("figures: {}", path.display());
    }
    if let (Some(path), Some(timeline)) = (&args.timeline, &report.timeline) {
        let title = format!("cuzk bench {} {}", args.kind, args.sector_size);
        std::fs::write(path, cuzk_core::timeline::render_svg(timeline, &title))
            .with_context(|| format!("writing {}", path.display()))?;
        println!("timeline: {}", path.display());
    }
    Ok(())
}

/// The request's circuits, built and checked as the daemon does at submission, and checked to
/// be those of `kind` at `sector_size` (an --input file names its own kind and size).
fn checked_job(
    request: &proto::SubmitProofRequest,
    kind: CircuitKind,
    sector_size: u64,
) -> Result<FilecoinJob> {
    let job = crate::kinds::filecoin_job(request).map_err(|e| anyhow::anyhow!("{e}"))?;
    let expected = kind.circuit_id(sector_size)?;
    if job.circuit_id != expected {
        bail!(
            "the input proves {}, not {expected} (--kind and --sector-size must match it)",
            job.circuit_id
        );
    }
    Ok(job)
}

/// The wire request to prove `kind`, from `input` or synthetic, as a client would send it.
fn bench_request(
    kind: CircuitKind,
    input: Option<&std::path::Path>,
    args: &BenchArgs,
    sector_size: u64,
) -> Result<proto::SubmitProofRequest> {
    let options = SynthOptions {
        seed: args.seed,
        ..SynthOptions::default()
    };
    match (kind, input) {
        (CircuitKind::PoRep, input) => {
            let (c1, registered_proof, miner_id, sector_number) = match input {
                Some(path) => {
                    let c1 = std::fs::read(path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    (c1, 0, args.miner_id, args.sector_number)
                }
                None => {
                    let made = synthetic::porep_of_size(sector_size, &options)?;
                    (
                        made.commit_phase1_json()?,
                        made.registered_proof_number(),
                        made.miner_id,
                        made.sector_number,
                    )
                }
            };
            let registered_proof = if input.is_some() {
                // The commit-phase-1 output names its registered proof; the request must too.
                let value: serde_json::Value = serde_json::from_slice(
                    cuzk_core::filecoin::envelope::unwrap(&c1)?.json.as_ref(),
                )
                .context("the --input file is not a commit-phase-1 output")?;
                let name = value["registered_proof"]
                    .as_str()
                    .context("the commit-phase-1 output names no registered_proof")?;
                cuzk_core::filecoin::registry::seal_proof_number_by_name(name)
                    .with_context(|| format!("unknown registered proof {name}"))?
            } else {
                registered_proof
            };
            Ok(proto::SubmitProofRequest {
                proof_kind: proto::ProofKind::PorepSealCommit as i32,
                registered_proof,
                sector_size,
                vanilla_proof: c1,
                miner_id,
                sector_number,
                ..Default::default()
            })
        }
        (_, Some(path)) => crate::synth::RequestFile::read(path)?.to_request(),
        (CircuitKind::SnapDeals, None) => {
            let made = synthetic::snap_of_size(sector_size, &options)?;
            Ok(proto::SubmitProofRequest {
                proof_kind: proto::ProofKind::SnapDealsUpdate as i32,
                registered_proof: made.registered_proof_number(),
                sector_size,
                vanilla_proofs: made.vanilla_proofs,
                comm_r_old: made.comm_r_old.to_vec(),
                comm_r_new: made.comm_r_new.to_vec(),
                comm_d_new: made.comm_d_new.to_vec(),
                ..Default::default()
            })
        }
        (CircuitKind::WinningPost | CircuitKind::WindowPost, None) => {
            let made = synthetic::post_of_size(kind, sector_size, None, &options)?;
            Ok(proto::SubmitProofRequest {
                proof_kind: if kind == CircuitKind::WinningPost {
                    proto::ProofKind::WinningPost
                } else {
                    proto::ProofKind::WindowPostPartition
                } as i32,
                registered_proof: made.registered_proof_number(),
                sector_size,
                miner_id: made.miner_id,
                randomness: made.randomness.to_vec(),
                vanilla_proofs: made.vanilla_proofs,
                ..Default::default()
            })
        }
    }
}

/// The circuit's parameters are in the cache, or are generated there when asked.
fn ensure_parameters(
    kind: CircuitKind,
    args: &BenchArgs,
    folder: &std::path::Path,
    configured: &std::path::Path,
    sector_size: u64,
) -> Result<()> {
    let files = cuzk_core::filecoin::registry::ParameterFiles::of(kind, sector_size)?;
    let path = folder.join(&files.params);
    if path.is_file() {
        println!("parameters: {}", path.display());
        return Ok(());
    }
    if !args.generate_params {
        bail!(
            "no parameters at {}: point --param-cache at the folder that holds them, or pass \
             --generate-params to generate random ones there (for benchmarks only: proofs made \
             with them are not valid on any network)",
            path.display()
        );
    }
    crate::production_folder_check(folder, sector_size, false, Some(configured))?;
    println!(
        "parameters: generating {} (random: for benchmarks only, never for a network)",
        path.display()
    );
    let options = GenerateOptions {
        force: true,
        cpu_only: false,
    };
    let done = generate_parameters(
        folder,
        sector_size,
        &[kind],
        options,
        &mut rand::rngs::OsRng,
    )?;
    for set in done {
        println!(
            "  {} generated in {:.1} s ({:.2} GB, multiplied on the {})",
            set.circuit_id,
            set.elapsed.as_secs_f64(),
            set.file_bytes as f64 / 1e9,
            if set.on_gpu { "GPU" } else { "CPU" }
        );
    }
    Ok(())
}

/// What the engine did.
struct Report {
    backend: String,
    partitions: usize,
    first_proof: Duration,
    /// The two jobs of the first measurement (parameters loaded, matrices recorded).
    first: (SweepPoint, Samples),
    points: Vec<(SweepPoint, Samples)>,
    timeline: Option<cuzk_core::timeline::Timeline>,
}

/// Sampled while a point runs.
#[derive(Clone, Default)]
struct Samples {
    /// The most VRAM in use on any GPU (total less free, as the driver reports it), sampled
    /// once a second.
    peak_vram_bytes: u64,
    /// The probe's end-to-end latencies (submission to result), one per probe job.
    probe_latencies: Vec<Duration>,
}

/// Submits the probe every `every` until `done`, each one awaited before the next: their
/// latencies.
async fn probe_latencies(
    engine: &Engine,
    request: &dyn Fn() -> ProofRequest,
    every: Duration,
    done: &AtomicBool,
) -> Result<Vec<Duration>> {
    let mut latencies = Vec::new();
    loop {
        let wait = Instant::now();
        loop {
            if done.load(Ordering::Relaxed) {
                return Ok(latencies);
            }
            if wait.elapsed() >= every {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let submitted = Instant::now();
        let id = engine.submit(request())?.job_id;
        let result = engine
            .await_result(&id, None)
            .await?
            .with_context(|| format!("probe job {id} was forgotten by the engine"))?;
        if result.state != cuzk_core::JobState::Completed {
            bail!(
                "probe job {id} ended {:?}: {}",
                result.state,
                result.error.unwrap_or_default()
            );
        }
        latencies.push(submitted.elapsed());
    }
}

async fn measure(
    args: &BenchArgs,
    config: cuzk_core::Config,
    job: FilecoinJob,
    probe: Option<FilecoinJob>,
    timed: usize,
) -> Result<Report> {
    let engine = tokio::task::spawn_blocking(move || Engine::start(config))
        .await
        .context("the engine's start-up task failed")?
        .context("starting the engine")?;
    let status = engine.status();
    let backend = if status.gpus.is_empty() {
        format!("CPU ({} provers)", status.cpu_provers)
    } else {
        let names: Vec<&str> = status.gpus.iter().map(|g| g.name.as_str()).collect();
        format!("{} GPU(s): {}", names.len(), names.join(", "))
    };
    println!(
        "engine: {backend}, {} synthesis threads, RAM budget {:.1} GiB",
        status.synthesis_threads,
        status.memory_budget_bytes as f64 / (1u64 << 30) as f64
    );
    let partitions = job.partitions.len();
    let request = || ProofRequest {
        request_id: None,
        circuit_id: job.circuit_id.clone(),
        priority: Priority::Normal,
        work: Box::new(CircuitProofs::new(job.kind, job.partitions.clone())),
    };
    if args.timeline.is_some() {
        engine.record_timeline(TIMELINE_SPANS);
    }

    // The first proof loads the parameters and records the circuit's matrices.
    let first = Instant::now();
    let point = with_progress(
        &engine,
        "first proofs",
        2,
        run_point(&engine, &request, 1, 2),
    )
    .await?;
    // Two jobs one at a time: the first loads the parameters and records the matrices, the
    // second is timed alone, so the first's own time is the difference.
    let second = point.0.median.total;
    let first_proof = first.elapsed().saturating_sub(second);
    println!(
        "first proof: {:.1} s (parameters loaded, matrices recorded); the second, alone: {:.1} s",
        first_proof.as_secs_f64(),
        second.as_secs_f64()
    );
    let first = point;
    let probe_request = probe.as_ref().map(|probe| {
        move || ProofRequest {
            request_id: None,
            circuit_id: probe.circuit_id.clone(),
            priority: Priority::Critical,
            work: Box::new(CircuitProofs::new(probe.kind, probe.partitions.clone())),
        }
    });
    if let Some(request) = &probe_request {
        // Its parameters loaded and matrices recorded before anything is timed.
        run_point(&engine, request, 1, 2).await?;
    }
    let mut points = Vec::new();
    for &c in &args.in_flight {
        let label = format!("{c} in flight");
        let run = run_point(&engine, &request, c, c + timed);
        let done = AtomicBool::new(false);
        let measured = async {
            let point = with_progress(&engine, &label, c + timed, run).await;
            done.store(true, Ordering::Relaxed);
            point
        };
        let probing = async {
            match &probe_request {
                Some(request) => probe_latencies(&engine, request, args.probe_every, &done).await,
                None => Ok(Vec::new()),
            }
        };
        let ((point, mut samples), probes) = {
            let (point, probes) = tokio::join!(measured, probing);
            (point?, probes?)
        };
        samples.probe_latencies = probes;
        points.push((point, samples));
    }
    let timeline = engine.take_timeline();
    engine.shutdown(Duration::from_secs(600)).await;
    Ok(Report {
        backend,
        partitions,
        first_proof,
        first,
        points,
        timeline,
    })
}

/// Runs `point` while sampling, once a second, how many jobs have ended and what the machine
/// holds, and saying so on stderr: a progress line redrawn in place on a terminal, a line every
/// ten seconds otherwise (a log file).
async fn with_progress(
    engine: &Engine,
    label: &str,
    jobs: usize,
    point: impl std::future::Future<Output = Result<SweepPoint, cuzk_core::sweep::SweepError>>,
) -> Result<(SweepPoint, Samples)> {
    use std::io::IsTerminal;
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let ended_before = engine.status().total_completed;
    let mut samples = Samples::default();
    tokio::pin!(point);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut ticks = 0u64;
    loop {
        tokio::select! {
            result = &mut point => {
                if terminal {
                    eprintln!();
                }
                return Ok((result?, samples));
            }
            _ = tick.tick() => {
                let status = engine.status();
                for gpu in &status.gpus {
                    samples.peak_vram_bytes = samples
                        .peak_vram_bytes
                        .max(gpu.vram_total_bytes.saturating_sub(gpu.vram_free_bytes));
                }
                ticks += 1;
                if !terminal && ticks % 10 != 0 {
                    continue;
                }
                let done = status.total_completed.saturating_sub(ended_before);
                let width = 30;
                let filled = (done as usize * width / jobs.max(1)).min(width);
                let line = format!(
                    "  {label}: [{}{}] {done}/{jobs} jobs, {:.0} s, RSS {:.1} GiB, {} synthesizing",
                    "#".repeat(filled),
                    " ".repeat(width - filled),
                    start.elapsed().as_secs_f64(),
                    rss_bytes() as f64 / (1u64 << 30) as f64,
                    status.synthesizing,
                );
                if terminal {
                    eprint!("\r{line}   ");
                } else {
                    eprintln!("{line}");
                }
            }
        }
    }
}

/// This process's resident memory now (Linux; 0 elsewhere).
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}

impl Report {
    fn table(&self) -> String {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let per_partition = |d: Duration| d.as_secs_f64() / self.partitions.max(1) as f64;
        let mut out = format!(
            "\n{} partition(s) per proof, {}; first proof {:.1} s\n\
             {:>9} {:>9} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9} {:>10} {:>9}\n",
            self.partitions,
            self.backend,
            self.first_proof.as_secs_f64(),
            "in flight",
            "s/proof",
            "proofs/h",
            "latency s",
            "synth s/p",
            "prove s/p",
            "final s/p",
            "peak RSS",
            "peak VRAM",
            "GPU busy",
        );
        let probe_column = |samples: &Samples| -> String {
            let mut v = samples.probe_latencies.clone();
            v.sort();
            match (v.get(v.len() / 2), v.last()) {
                (Some(median), Some(max)) => format!(
                    "  probe: {} runs, median {:.2} s, max {:.2} s",
                    v.len(),
                    median.as_secs_f64(),
                    max.as_secs_f64()
                ),
                _ => String::new(),
            }
        };
        for (p, samples) in &self.points {
            // A proof is a job of all its partitions: s/proof is per job.
            let per_job = p.seconds_per_proof * self.partitions as f64;
            let busy: Vec<String> = p
                .gpu_busy
                .iter()
                .map(|b| format!("{:.0}%", b * 100.0))
                .collect();
            out += &format!(
                "{:>9} {:>9.2} {:>9.0} {:>11.2} {:>11.2} {:>11.2} {:>11.2} {:>8.1}G {:>9.1}G {:>9}\n",
                p.concurrency,
                per_job,
                3600.0 / per_job.max(1e-9),
                p.median.total.as_secs_f64(),
                per_partition(p.median.synthesis),
                per_partition(p.median.prove),
                per_partition(p.median.finalize),
                gib(p.peak_rss_bytes.unwrap_or(0)),
                gib(samples.peak_vram_bytes),
                if busy.is_empty() { "-".to_string() } else { busy.join(" ") },
            );
            out.pop();
            out += &probe_column(samples);
            out.push('\n');
        }
        out
    }

    fn json(&self, args: &BenchArgs) -> serde_json::Value {
        serde_json::json!({
            "kind": args.kind,
            "sector_size": args.sector_size,
            "backend": self.backend,
            "partitions": self.partitions,
            "first_proof_seconds": self.first_proof.as_secs_f64(),
            // The two jobs run one at a time after start-up: its figures are the second's.
            "second_proof_alone": self.point_json(&self.first),
            "points": self.points.iter().map(|p| self.point_json(p)).collect::<Vec<_>>(),
        })
    }

    fn point_json(&self, (p, samples): &(SweepPoint, Samples)) -> serde_json::Value {
        serde_json::json!({
                "in_flight": p.concurrency,
                "jobs": p.jobs,
                "seconds_per_proof": p.seconds_per_proof * self.partitions as f64,
                "seconds_per_partition": p.seconds_per_proof,
                "median_latency_seconds": p.median.total.as_secs_f64(),
                "median_per_partition_seconds": {
                    "synthesis": p.median.synthesis.as_secs_f64() / self.partitions.max(1) as f64,
                    "prove": p.median.prove.as_secs_f64() / self.partitions.max(1) as f64,
                    "finalize": p.median.finalize.as_secs_f64() / self.partitions.max(1) as f64,
                    "verify": p.median.verify.as_secs_f64() / self.partitions.max(1) as f64,
                },
                "median_queue_wait_seconds": p.median.queue_wait.as_secs_f64(),
                "peak_rss_bytes": p.peak_rss_bytes,
                "peak_vram_bytes": samples.peak_vram_bytes,
                "gpu_busy": p.gpu_busy,
                "probe_latency_seconds": samples
                    .probe_latencies
                    .iter()
                    .map(Duration::as_secs_f64)
                    .collect::<Vec<_>>(),
        })
    }
}
