//! `cuzk`: the proving daemon and its command-line client.
//!
//! - `cuzk serve [--config FILE]`: the daemon (gRPC `cuzk.v1.ProvingEngine`, see
//!   `docs/operations.md`).
//! - `cuzk submit|await|prove|cancel|status|metrics|preload|evict`: talk to a daemon
//!   (`--address`, default the daemon's default socket; `--json` for scripts).
//! - `cuzk config check FILE | print-default`: validate a configuration, or print every key
//!   with its default.
//! - `cuzk params info PATH`: read a parameter file and print its sizes.
//! - `cuzk params generate --sector-size 2KiB [--kinds porep,winning,wpost,snap]`: random
//!   parameters for Filecoin's test sector sizes, under filecoin-proofs' file names.
//!
//! # Layout
//!
//! - `config`: the configuration file (`[daemon]` plus the engine's sections).
//! - `server`: `cuzk serve`: listeners, readiness, the drain on SIGTERM.
//! - `authority`: unix-socket connections from clients that send a path as `:authority`.
//! - `service`: the gRPC service over the engine, and its error contract.
//! - `kinds`: wire proof kinds to engine requests.
//! - `status_http`: `GET /metrics` and `GET /status`.
//! - `notify`: systemd's readiness messages.
//! - `client`: the client commands.
//! - `proto`: the generated gRPC code.

mod authority;
mod bench;
mod client;
mod config;
mod kinds;
mod notify;
mod proto;
mod server;
mod service;
mod status_http;
mod synth;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use cuzk_core::bellperson_lite::params::read_parameters_mmap;

use crate::client::{connect, status_error, SubmitArgs};
use crate::config::DaemonConfig;

#[derive(Parser)]
#[command(
    name = "cuzk",
    version,
    about = "Groth16 proving engine for Filecoin and bellpepper circuits"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon.
    Serve {
        /// Configuration file (default: $CUZK_CONFIG, else /etc/cuzk/cuzk.toml if present,
        /// else the built-in defaults).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Queue a proof and print its job id.
    Submit(SubmitCli),
    /// Wait for a job and print how it ended.
    Await {
        job_id: String,
        /// Give up after this many milliseconds (0: wait as long as it takes).
        #[arg(long, default_value_t = 0)]
        timeout_ms: u64,
        /// Write the proof bytes to this file.
        #[arg(long)]
        proof_out: Option<PathBuf>,
        #[command(flatten)]
        conn: Conn,
    },
    /// Queue a proof and wait for it.
    Prove {
        #[command(flatten)]
        submit: SubmitCli,
        /// Write the proof bytes to this file.
        #[arg(long)]
        proof_out: Option<PathBuf>,
    },
    /// Cancel a queued or running job.
    Cancel {
        job_id: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// GPUs, parameters, queues and counters.
    Status {
        #[command(flatten)]
        conn: Conn,
    },
    /// The Prometheus metrics text.
    Metrics {
        #[command(flatten)]
        conn: Conn,
    },
    /// Load a circuit's parameters now.
    Preload {
        circuit_id: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Drop a circuit's parameters from memory.
    Evict {
        circuit_id: String,
        #[command(flatten)]
        conn: Conn,
    },
    /// Check or print configuration files.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Write valid inputs for Filecoin's circuits at any sector size without sealing
    /// (benchmarks and tests; never for a chain).
    Synth {
        /// porep (a commit-phase-1 output), winning-post, window-post or snap (a request file
        /// for `cuzk prove --request`).
        kind: String,
        /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
        #[arg(long)]
        sector_size: String,
        #[arg(long)]
        out: PathBuf,
        /// Seeds every random value: the same seed writes the same file.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 1000)]
        miner_id: u64,
        /// The sector's number (window-post: the first sector's).
        #[arg(long, default_value_t = 1)]
        sector_number: u64,
        /// window-post: how many sectors (default: a full partition, 2349 at 32GiB).
        #[arg(long)]
        sectors: Option<usize>,
    },
    /// Benchmark this machine on Filecoin's circuits: synthetic inputs (or --input), the
    /// engine as `cuzk serve` runs it (same configuration file), jobs kept in flight.
    Bench {
        /// porep, winning-post, window-post or snap.
        #[arg(long)]
        kind: String,
        /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
        #[arg(long)]
        sector_size: String,
        /// Prove this input instead of a synthetic one: a commit-phase-1 output (porep) or a
        /// request file from `cuzk synth` (the other kinds).
        #[arg(long)]
        input: Option<PathBuf>,
        /// porep --input: the sector's miner.
        #[arg(long, default_value_t = 1000)]
        miner_id: u64,
        /// porep --input: the sector's number.
        #[arg(long, default_value_t = 1)]
        sector_number: u64,
        /// Configuration file, as for `cuzk serve` (default: $CUZK_CONFIG, else
        /// /etc/cuzk/cuzk.toml if present, else the built-in defaults).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The parameter folder (default: the configuration's srs.param_cache).
        #[arg(long)]
        param_cache: Option<PathBuf>,
        /// Generate missing parameters into the parameter folder (random ones: for
        /// benchmarks only, never for a network's parameter cache).
        #[arg(long)]
        generate_params: bool,
        /// Jobs kept in flight, one measured point each.
        #[arg(long, value_delimiter = ',', default_value = "1")]
        in_flight: Vec<usize>,
        /// Timed jobs per point (default: the most in flight).
        #[arg(long)]
        jobs: Option<usize>,
        /// Write the figures as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Draw the engine's timeline (every thread's phases) as SVG.
        #[arg(long)]
        timeline: Option<PathBuf>,
        /// Seeds the synthetic input.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Also submit this kind (synthetic, same sector size) at CRITICAL priority while each
        /// point runs, and report its latency under the load (e.g. winning-post under porep).
        #[arg(long)]
        probe: Option<String>,
        /// Seconds between the probe's jobs (each is awaited before the wait starts).
        #[arg(long, default_value_t = 5.0)]
        probe_every: f64,
        /// The GPU's budget for parameters, matrices and proofs, overriding the
        /// configuration's gpus.vram_budget: e.g. 24GiB or 16GiB simulates a smaller card.
        #[arg(long)]
        vram_budget: Option<String>,
    },
    /// Inspect a parameter file, or generate parameters for test sector sizes.
    Params {
        #[command(subcommand)]
        action: ParamsAction,
    },
}

#[derive(Subcommand)]
enum ParamsAction {
    /// Read a bellperson / Filecoin `.params` file and print its section sizes.
    Info {
        path: PathBuf,
        /// Skip the subgroup checks of the points.
        #[arg(long)]
        unchecked: bool,
    },
    /// Write random parameters for Filecoin circuits into a parameter folder, under the names
    /// filecoin-proofs uses (files already there are kept). For test sector sizes, and for
    /// production sizes with --force: those are not the network's parameters (no ceremony),
    /// so they go into a folder of their own, never the parameter cache unless
    /// --into-param-cache says so.
    Generate {
        /// 2KiB, 8MiB or 512MiB; 32GiB and 64GiB with --force and --param-cache.
        #[arg(long)]
        sector_size: String,
        /// Which circuits, comma-separated: porep, winning, wpost, snap (default: all).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "porep,winning,wpost,snap"
        )]
        kinds: Vec<String>,
        /// The parameter cache (default: $FIL_PROOFS_PARAMETER_CACHE, else
        /// /var/tmp/filecoin-proof-parameters).
        #[arg(long)]
        param_cache: Option<PathBuf>,
        /// Generate even for production sizes (benchmarks or a private network's parameters:
        /// real networks use the published ones).
        #[arg(long)]
        force: bool,
        /// Allow production-size parameters into the default parameter cache, where a node
        /// would take them for the network's.
        #[arg(long)]
        into_param_cache: bool,
        /// Multiply on the CPU even when built for and running on a GPU.
        #[arg(long)]
        cpu: bool,
    },
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Validate a file: prints OK, or the key and the reason, and fails.
    Check { path: PathBuf },
    /// Print every key with its default and its meaning.
    PrintDefault,
}

/// Where the daemon is, and the output format.
#[derive(Args, Clone)]
struct Conn {
    /// The daemon's address: unix:///path/to.sock or host:port (default: the default socket).
    #[arg(long, default_value = "", env = "CUZK_ADDRESS")]
    address: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Largest message sent or received.
    #[arg(long, default_value_t = 512 << 20)]
    max_message_bytes: usize,
}

#[derive(Args, Clone)]
struct SubmitCli {
    /// porep, snap, wpost, winning, or test.
    #[arg(long, required_unless_present = "request")]
    kind: Option<String>,
    /// A request file (as `cuzk synth window-post` writes): every field of the request but
    /// --priority and --request-id comes from it.
    #[arg(long, conflicts_with_all = ["kind", "vanilla_proof", "vanilla_proofs", "test_spec"])]
    request: Option<PathBuf>,
    /// low, normal, high or critical.
    #[arg(long, default_value = "normal")]
    priority: String,
    /// Idempotency key: submitting it again returns the same job.
    #[arg(long)]
    request_id: Option<String>,
    #[arg(long, default_value_t = 0)]
    sector_size: u64,
    #[arg(long, default_value_t = 0)]
    registered_proof: u64,
    /// PoRep C2: the commit-phase-1 output (JSON file), bare or in Curio's envelope.
    #[arg(long)]
    vanilla_proof: Option<PathBuf>,
    /// PoRep C2: send the commit-phase-1 output in Curio's envelope ({SectorNum, Phase1Out,
    /// SectorSize}, from --sector-number and --sector-size), as Curio's client does.
    #[arg(long)]
    curio_envelope: bool,
    /// PoSt / SnapDeals: one file per vanilla proof.
    #[arg(long, num_args = 1..)]
    vanilla_proofs: Vec<PathBuf>,
    /// For --kind test: the circuit, e.g. '{"circuit":"mix","log_size":10}'.
    #[arg(long)]
    test_spec: Option<String>,
    #[arg(long, default_value_t = 0)]
    sector_number: u64,
    #[arg(long, default_value_t = 0)]
    miner_id: u64,
    /// PoSt challenge seed, 64 hex digits.
    #[arg(long)]
    randomness: Option<String>,
    #[arg(long, default_value_t = 0)]
    partition_index: u32,
    /// SnapDeals: the sector's old replica commitment, 64 hex digits.
    #[arg(long)]
    comm_r_old: Option<String>,
    /// SnapDeals: the new replica commitment, 64 hex digits.
    #[arg(long)]
    comm_r_new: Option<String>,
    /// SnapDeals: the new data commitment, 64 hex digits.
    #[arg(long)]
    comm_d_new: Option<String>,
    #[command(flatten)]
    conn: Conn,
}

impl SubmitCli {
    fn args(&self) -> SubmitArgs {
        SubmitArgs {
            request: self.request.clone(),
            kind: self.kind.clone().unwrap_or_default(),
            priority: self.priority.clone(),
            request_id: self.request_id.clone(),
            sector_size: self.sector_size,
            registered_proof: self.registered_proof,
            vanilla_proof: self.vanilla_proof.clone(),
            curio_envelope: self.curio_envelope,
            vanilla_proofs: self.vanilla_proofs.clone(),
            test_spec: self.test_spec.clone(),
            sector_number: self.sector_number,
            miner_id: self.miner_id,
            randomness: self.randomness.clone(),
            partition_index: self.partition_index,
            comm_r_old: self.comm_r_old.clone(),
            comm_r_new: self.comm_r_new.clone(),
            comm_d_new: self.comm_d_new.clone(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Serve { config } => {
            let path = config.or_else(config::default_config_path);
            let config = match &path {
                Some(p) => DaemonConfig::from_file(p)?,
                None => DaemonConfig::default(),
            };
            init_logging(&config.daemon.log_format);
            if let Some(p) = &path {
                tracing::info!(config = %p.display(), "configuration read");
            }
            runtime()?.block_on(server::serve(config))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Config { action } => match action {
            ConfigAction::Check { path } => match DaemonConfig::from_file(&path) {
                Ok(_) => {
                    println!("{}: OK", path.display());
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("{e:#}");
                    Ok(ExitCode::FAILURE)
                }
            },
            ConfigAction::PrintDefault => {
                print!("{}", config::EXAMPLE);
                Ok(ExitCode::SUCCESS)
            }
        },
        Command::Params { action } => {
            match action {
                ParamsAction::Info { path, unchecked } => params_info(&path, !unchecked)?,
                ParamsAction::Generate {
                    sector_size,
                    kinds,
                    param_cache,
                    force,
                    into_param_cache,
                    cpu,
                } => {
                    // Its log says each circuit's size and the file's before the points are
                    // made, which at production sizes takes minutes.
                    init_logging_at("human", "info");
                    let options = cuzk_core::filecoin::GenerateOptions {
                        force,
                        cpu_only: cpu,
                    };
                    params_generate(&sector_size, &kinds, param_cache, into_param_cache, options)?
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Synth {
            kind,
            sector_size,
            out,
            seed,
            miner_id,
            sector_number,
            sectors,
        } => {
            synth::run(&synth::SynthArgs {
                kind,
                sector_size,
                out,
                options: cuzk_core::filecoin::synthetic::SynthOptions {
                    seed,
                    miner_id,
                    sector_number,
                },
                sectors,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            kind,
            sector_size,
            input,
            miner_id,
            sector_number,
            config,
            param_cache,
            generate_params,
            in_flight,
            jobs,
            json,
            timeline,
            seed,
            probe,
            probe_every,
            vram_budget,
        } => {
            // Warnings only: the engine's per-job lines would bury the progress line (its
            // figures are in the report).
            init_logging_at("human", "warn");
            bench::run(&bench::BenchArgs {
                kind,
                sector_size,
                input,
                miner_id,
                sector_number,
                config,
                param_cache,
                generate_params,
                in_flight,
                jobs,
                json,
                timeline,
                seed,
                probe,
                probe_every: std::time::Duration::try_from_secs_f64(probe_every)
                    .ok()
                    .filter(|d| d.as_secs_f64() >= 0.1)
                    .context("--probe-every takes a number of seconds, at least 0.1")?,
                vram_budget: vram_budget
                    .map(|text| match text.parse::<cuzk_core::config::ByteSize>() {
                        Ok(cuzk_core::config::ByteSize::Bytes(0)) => {
                            Err(anyhow::anyhow!("--vram-budget must be more than 0 bytes"))
                        }
                        Ok(size) => Ok(size),
                        Err(e) => Err(anyhow::anyhow!("--vram-budget: {e}")),
                    })
                    .transpose()?,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        other => runtime()?.block_on(client_command(other)),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// A connection to the daemon `conn` names.
async fn connected(conn: &Conn) -> Result<client::Client> {
    connect(&conn.address, conn.max_message_bytes).await
}

async fn client_command(command: Command) -> Result<ExitCode> {
    let ended = |ok: bool| {
        if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    };
    match command {
        Command::Submit(s) => {
            let request = client::submit_request(&s.args())?;
            client::submit(&mut connected(&s.conn).await?, request, s.conn.json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Await {
            job_id,
            timeout_ms,
            proof_out,
            conn,
        } => {
            let mut c = connected(&conn).await?;
            let r = client::await_with_progress(&mut c, &job_id, timeout_ms).await?;
            client::print_result(&r, conn.json, proof_out.as_ref())?;
            Ok(ended(client::completed(&r)))
        }
        Command::Prove { submit, proof_out } => {
            let request = client::submit_request(&submit.args())?;
            let mut c = connected(&submit.conn).await?;
            let job_id = c
                .submit_proof(request)
                .await
                .map_err(status_error)?
                .into_inner()
                .job_id;
            let r = client::await_with_progress(&mut c, &job_id, 0).await?;
            client::print_result(&r, submit.conn.json, proof_out.as_ref())?;
            Ok(ended(client::completed(&r)))
        }
        Command::Cancel { job_id, conn } => {
            client::cancel(&mut connected(&conn).await?, &job_id, conn.json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Status { conn } => {
            client::status(&mut connected(&conn).await?, conn.json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Metrics { conn } => {
            client::metrics(&mut connected(&conn).await?).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Preload { circuit_id, conn } => {
            client::preload(&mut connected(&conn).await?, &circuit_id, conn.json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Evict { circuit_id, conn } => {
            client::evict(&mut connected(&conn).await?, &circuit_id, conn.json).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve { .. }
        | Command::Config { .. }
        | Command::Params { .. }
        | Command::Synth { .. }
        | Command::Bench { .. } => {
            unreachable!("handled without a connection")
        }
    }
}

/// Logs to stderr: human-readable on a terminal (or "human"), JSON lines otherwise (or
/// "json"). `RUST_LOG` filters (default: info).
fn init_logging(format: &str) {
    init_logging_at(format, "info");
}

/// Logging at `level` unless RUST_LOG says otherwise.
fn init_logging_at(format: &str, level: &str) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let json = match format {
        "json" => true,
        "human" => false,
        _ => !std::io::stderr().is_terminal(),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}

fn params_info(path: &Path, checked: bool) -> Result<()> {
    let start = Instant::now();
    let params = read_parameters_mmap(path, checked)
        .with_context(|| format!("reading {}", path.display()))?;
    println!(
        "{}: read in {:.1} ms ({})",
        path.display(),
        start.elapsed().as_secs_f64() * 1e3,
        if checked {
            "subgroup-checked"
        } else {
            "unchecked"
        }
    );
    println!("  public inputs (ic): {}", params.vk.ic.len());
    println!(
        "  h:    {:>10} G1 (domain 2^{})",
        params.h.len(),
        (params.h.len() + 1).next_power_of_two().trailing_zeros()
    );
    println!("  l:    {:>10} G1", params.l.len());
    println!("  a:    {:>10} G1", params.a.len());
    println!("  b_g1: {:>10} G1", params.b_g1.len());
    println!("  b_g2: {:>10} G2", params.b_g2.len());
    Ok(())
}

/// Random parameters of a production size are refused in a parameter cache node software or a
/// daemon would take for the network's (the default one, and `configured`, the folder of the
/// daemon's configuration) unless the operator says so.
fn production_folder_check(
    folder: &Path,
    sector_size: u64,
    allowed: bool,
    configured: Option<&Path>,
) -> Result<()> {
    if !cuzk_core::filecoin::registry::is_production_size(sector_size) || allowed {
        return Ok(());
    }
    let default = cuzk_core::Config::default().param_cache();
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(folder, &default) || configured.is_some_and(|c| same(folder, c)) {
        bail!(
            "{} is the parameter cache: random {sector_size}-byte parameters there would be \
             taken for the network's. Generate into a folder of their own (--param-cache DIR), \
             or pass --into-param-cache if that is really meant",
            folder.display()
        );
    }
    Ok(())
}

fn params_generate(
    sector_size: &str,
    kinds: &[String],
    param_cache: Option<PathBuf>,
    into_param_cache: bool,
    options: cuzk_core::filecoin::GenerateOptions,
) -> Result<()> {
    use cuzk_core::filecoin::{generate_parameters, parse_sector_size, CircuitKind, FilecoinError};
    let sector_size = parse_sector_size(sector_size)?;
    let kinds = kinds
        .iter()
        .map(|name| {
            CircuitKind::from_name(name.trim()).with_context(|| {
                format!("unknown circuit kind `{name}` (porep, winning, wpost or snap)")
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let folder = param_cache.unwrap_or_else(|| cuzk_core::Config::default().param_cache());
    if options.force {
        // The daemon's configured folder, where there is a configuration file.
        let configured = config::default_config_path()
            .and_then(|path| DaemonConfig::from_file(&path).ok())
            .map(|c| c.engine.param_cache());
        production_folder_check(
            &folder,
            sector_size,
            into_param_cache,
            configured.as_deref(),
        )?;
    }
    println!(
        "generating parameters for {sector_size}-byte sectors in {}",
        folder.display()
    );
    let done = generate_parameters(
        &folder,
        sector_size,
        &kinds,
        options,
        &mut rand::rngs::OsRng,
    )
    .map_err(|e| match e {
        FilecoinError::ProductionSize { .. } => anyhow::anyhow!("{e}: pass --force"),
        other => other.into(),
    })?;
    for set in done {
        println!(
            "  {:<12} {} ({})",
            set.circuit_id,
            set.path.display(),
            if set.generated {
                format!(
                    "{:.2} GB, generated in {:.1} s, multiplied on the {}",
                    set.file_bytes as f64 / 1e9,
                    set.elapsed.as_secs_f64(),
                    if set.on_gpu { "GPU" } else { "CPU" }
                )
            } else {
                "already there, kept".to_string()
            }
        );
    }
    Ok(())
}
