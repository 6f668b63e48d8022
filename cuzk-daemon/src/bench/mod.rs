//! `cuzk bench`: an operator's benchmark of their own machine, on Filecoin's real circuits at
//! any sector size, without a sealed sector.
//!
//! It makes a synthetic input (`cuzk_core::filecoin::synthetic`) or reads one (a commit-phase-1
//! output, or a request file from `cuzk synth`), checks it and builds its circuits as the
//! daemon does at submission, finds the parameters (or generates them, with
//! `--generate-params`), starts the engine from the same configuration file as `cuzk serve`,
//! and measures: the first proof (parameters loaded, matrices recorded), then for each
//! number of jobs in flight the sustained seconds per proof, the phases per partition, peak
//! RSS, peak VRAM and GPU busy. A progress line on stderr says how far it is, and the JSON
//! (`--json`) is rewritten after each point, `"complete": false` until the last, so that a
//! run stopped part way keeps what it measured.
//!
//! # Layout
//! - this module: the arguments, the input (synthetic or read), the parameters;
//! - `measure`: the engine run, the probe and the progress line;
//! - `report`: the table and the JSON.
//! - `witness`: `--witness-only`, the CPU's witness alone (gadgets and native).

mod measure;
mod report;
mod witness;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cuzk_core::config::ByteSize;
use cuzk_core::filecoin::synthetic::{self, SynthOptions};
use cuzk_core::filecoin::{parse_sector_size, CircuitKind, FilecoinJob, GenerateOptions};

use crate::config::DaemonConfig;
use crate::proto;
use report::Report;

/// What `cuzk bench` was asked for.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// porep, winning-post, window-post or snap.
    #[arg(long)]
    pub kind: String,
    /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long)]
    pub sector_size: String,
    /// Prove this input instead of a synthetic one: a commit-phase-1 output (porep) or a
    /// request file from `cuzk synth` (the other kinds).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// porep --input: the sector's miner (its replica id hashes it).
    #[arg(long, default_value_t = 1000)]
    pub miner_id: u64,
    /// porep --input: the sector's number.
    #[arg(long, default_value_t = 1)]
    pub sector_number: u64,
    /// Configuration file, as for `cuzk serve` (default: $CUZK_CONFIG, else
    /// /etc/cuzk/cuzk.toml if present, else the built-in defaults).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The parameter folder (default: the configuration's srs.param_cache).
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    /// Generate missing parameters into the parameter folder (random ones: for benchmarks
    /// only, never for a network's parameter cache).
    #[arg(long)]
    pub generate_params: bool,
    /// Jobs kept in flight, one measured point each.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub in_flight: Vec<usize>,
    /// Timed jobs per point (default: the most in flight).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Skip the second proof timed alone after the first (one proof's time, over a minute
    /// at 32 GiB; `--in-flight 1` measures the same).
    #[arg(long)]
    pub skip_alone: bool,
    /// Write the figures as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw the engine's timeline (every thread's phases) as SVG.
    #[arg(long)]
    pub timeline: Option<PathBuf>,
    /// Seeds the synthetic input.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also submit this kind (synthetic, same sector size) at CRITICAL priority while each
    /// point runs, and report its latency under the load (e.g. winning-post under porep).
    #[arg(long)]
    pub probe: Option<String>,
    /// Seconds between the probe's jobs on average: each wait is drawn from half to one and a
    /// half times this, so that the probe does not lock onto the load's period (each job is
    /// awaited before the wait starts; at least 0.1).
    #[arg(long, default_value = "5", value_parser = parse_probe_every)]
    pub probe_every: Duration,
    /// The GPU's budget for parameters, matrices and proofs, overriding the configuration's
    /// gpus.vram_budget: e.g. 24GiB or 16GiB simulates a smaller card on a large one.
    #[arg(long, value_parser = parse_vram_budget)]
    pub vram_budget: Option<ByteSize>,
    /// Time only the first partition's witness, through the circuit's gadgets and natively
    /// where the kind has a generator, and compare them (`--jobs` runs, default 2): no
    /// engine, no GPU, no parameters.
    #[arg(long)]
    pub witness_only: bool,
    /// With --witness-only: also time this many of the partition's witnesses at once, each
    /// on its own thread (gadgets, then native), for the cost per partition with every core
    /// busy, as the engine's synthesis threads run them. Holds that many witnesses in memory
    /// (about 4 GB each at 32 GiB).
    #[arg(long, default_value_t = 0, requires = "witness_only")]
    pub at_once: usize,
    /// With --witness-only: also time a full synthesis (the witness and a, b, c, as the CPU
    /// prover needs them), and check its witness against the others.
    #[arg(long, requires = "witness_only")]
    pub full: bool,
}

fn parse_probe_every(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| d.as_secs_f64() >= 0.1)
        .ok_or_else(|| format!("`{text}` is not a number of seconds of at least 0.1"))
}

fn parse_vram_budget(text: &str) -> Result<ByteSize, String> {
    match text.parse::<ByteSize>()? {
        ByteSize::Bytes(0) => Err("must be more than 0 bytes".into()),
        size => Ok(size),
    }
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
    if let Some(budget) = args.vram_budget {
        daemon.engine.gpus.vram_budget = budget;
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
    if args.witness_only {
        return witness::run(args, &job);
    }
    let folder = config.param_cache();
    ensure_parameters(kind, args, &folder, &configured, sector_size)?;
    let probe = match &args.probe {
        Some(name) => {
            let kind = crate::synth::parse_kind(name)?;
            let request = bench_request(kind, None, args, sector_size)?;
            let job = checked_job(&request, kind, sector_size)?;
            ensure_parameters(kind, args, &folder, &configured, sector_size)?;
            println!(
                "probe: {} ({} partition(s)) at CRITICAL every {:.0} s (+-50%) during each point",
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
    let write_json = |report: &Report| -> Result<()> {
        match &args.json {
            Some(path) => std::fs::write(path, serde_json::to_vec_pretty(&report.json(args))?)
                .with_context(|| format!("writing {}", path.display())),
            None => Ok(()),
        }
    };
    let report = runtime.block_on(measure::measure(
        args,
        config,
        job,
        probe,
        timed,
        &write_json,
    ))?;
    println!("{}", report.table());
    if let Some(path) = &args.json {
        write_json(&report)?;
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
                // Only that field is decoded here (the rest is skipped, not built): intake
                // parses the whole output once.
                #[derive(serde::Deserialize)]
                struct Head {
                    registered_proof: String,
                }
                let head: Head = serde_json::from_slice(
                    cuzk_core::filecoin::envelope::unwrap(&c1)?.json.as_ref(),
                )
                .context("the --input file is not a commit-phase-1 output")?;
                let name = head.registered_proof;
                cuzk_core::filecoin::registry::seal_proof_number_by_name(&name)
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
    println!(
        "parameters: generating {} (random: for benchmarks only, never for a network)",
        path.display()
    );
    let folders = crate::params_cmd::Folders {
        folder,
        configured: Some(configured),
        into_param_cache: false,
    };
    let options = GenerateOptions {
        force: true,
        cpu_only: false,
    };
    crate::params_cmd::generate(&folders, sector_size, &[kind], options)?;
    Ok(())
}
