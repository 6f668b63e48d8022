//! `cuzk`: the proving daemon and its command-line client.
//!
//! - `cuzk serve [--config FILE]`: the daemon (gRPC `cuzk.v1.ProvingEngine`, see
//!   `docs/operations.md`).
//! - `cuzk demo`: a daemon in this process, a few jobs over gRPC, their proofs verified and
//!   the engine's timeline drawn (what `cargo xtask demo` runs).
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
//! - `demo`: `cuzk demo`.
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
mod demo;
mod kinds;
mod notify;
mod params_cmd;
mod proto;
mod server;
mod service;
mod status_http;
mod synth;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

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
    /// Start a daemon in this process, prove a few test jobs over gRPC (one CRITICAL job
    /// overtaking the others), verify the proofs, draw the timeline, drain.
    Demo(demo::DemoArgs),
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
    Synth(synth::SynthArgs),
    /// Benchmark this machine on Filecoin's circuits: synthetic inputs (or --input), the
    /// engine as `cuzk serve` runs it (same configuration file), jobs kept in flight.
    Bench(bench::BenchArgs),
    /// Inspect a parameter file, or generate parameters for test sector sizes.
    Params {
        #[command(subcommand)]
        action: params_cmd::ParamsAction,
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
            params_cmd::run(action)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Synth(args) => {
            synth::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo(args) => {
            // Warnings only: the per-job lines are the demo's output.
            init_logging_at("human", "warn");
            runtime()?.block_on(demo::run(&args))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => {
            // Warnings only: the engine's per-job lines would bury the progress line (its
            // figures are in the report).
            init_logging_at("human", "warn");
            bench::run(&args)?;
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
        | Command::Synth(_)
        | Command::Demo(_)
        | Command::Bench(_) => {
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
pub(crate) fn init_logging_at(format: &str, level: &str) {
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
