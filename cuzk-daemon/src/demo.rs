//! `cuzk demo`: the daemon at work, in one command. It starts a daemon in this process on a
//! unix socket of its own (test circuits enabled, a small memory budget), submits jobs over
//! gRPC with the project's client (the last one CRITICAL, to overtake the others), shows each
//! job while it runs, prints the jobs' timings and the daemon's status, verifies every proof
//! with the circuit's verifying key, draws the engine's timeline, and drains the daemon.
//!
//! Everything it writes goes into `--dir`: the configuration it served (usable with
//! `cuzk serve --config`), the proofs, the verifying key, `demo.json` (what was proved, for a
//! test or a script to check) and `demo-timeline.svg`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use cuzk_core::bellperson_lite::circuits::TestCircuit;
use cuzk_core::bellperson_lite::params::write_verifying_key;
use cuzk_core::bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use cuzk_core::bellperson_lite::{Proof, Scalar};
use tokio::sync::mpsc;

use crate::client::{self, Client};
use crate::config::{DaemonConfig, Listen};
use crate::proto;
use crate::server;

/// Spans kept in the demo's timeline (a few per partition).
const TIMELINE_SPANS: usize = 100_000;

#[derive(Args, Clone, Debug)]
pub struct DemoArgs {
    /// Folder for the configuration, proofs, verifying key, demo.json and the timeline
    /// (default: cuzk-demo under the temporary folder).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The test circuit: sha (SHA-256 compressions) or mix (arithmetic).
    #[arg(long, default_value = "sha")]
    circuit: String,
    /// The circuit's size: 2^N constraints.
    #[arg(long, default_value_t = 14)]
    log_size: u32,
    /// Jobs of NORMAL priority, submitted first.
    #[arg(long, default_value_t = 5)]
    jobs: usize,
    /// Partitions (proofs) per NORMAL job; the CRITICAL job has one.
    #[arg(long, default_value_t = 4)]
    partitions: usize,
    /// The memory budget of the demo's daemon.
    #[arg(long, default_value = "4GiB")]
    memory_budget: String,
}

/// One submitted job and how it ended.
struct Job {
    id: String,
    priority: proto::Priority,
    partitions: usize,
    submitted: Instant,
    /// Set when it ended: the response and the time it took since submission.
    ended: Option<(proto::AwaitProofResponse, Duration)>,
}

pub async fn run(args: &DemoArgs) -> Result<()> {
    ensure!(args.jobs >= 1, "--jobs must be at least 1");
    ensure!(
        (1..=16).contains(&args.partitions),
        "--partitions must be between 1 and 16"
    );
    // Checked before a daemon is started: an unknown circuit or a size out of range.
    TestCircuit::by_name(&args.circuit, args.log_size, 0)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("cuzk-demo"));
    let proofs_dir = dir.join("proofs");
    std::fs::create_dir_all(&proofs_dir)
        .with_context(|| format!("cannot create {}", proofs_dir.display()))?;
    // A unix socket's path is limited to about 100 bytes: a short one under /tmp rather
    // than one under `dir`, which may be deep.
    let socket = std::env::temp_dir().join(format!("cuzk-demo-{}.sock", std::process::id()));
    let config_path = dir.join("cuzk-demo.toml");
    std::fs::write(&config_path, demo_config(&socket, &args.memory_budget))
        .with_context(|| format!("cannot write {}", config_path.display()))?;
    let config = DaemonConfig::from_file(&config_path)?;

    println!(
        "cuzk demo: a daemon in this process, configuration {}",
        config_path.display()
    );
    let running = server::start(config).await?;
    let address = match running.listen() {
        Listen::Unix(path) => format!("unix://{}", path.display()),
        Listen::Tcp(addr) => addr.to_string(),
    };
    println!("listening on {address}");
    let outcome = drive(args, &address, &dir, &proofs_dir, &running).await;
    // The drain runs whatever happened above, so that the socket is removed and the engine's
    // threads stop before the process exits.
    let report = running.drain("the demo is over").await?;
    println!(
        "daemon drained: {} (jobs cancelled at the deadline: {})",
        if report.drained {
            "every job had ended"
        } else {
            "jobs were still running"
        },
        report.cancelled
    );
    let summary = outcome?;
    std::fs::write(
        dir.join("demo.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;
    println!("\nwritten under {}:", dir.display());
    println!("  demo-timeline.svg  every engine thread's phases, job by job (open in a browser)");
    println!("  proofs/            each job's proofs (192 bytes per partition)");
    println!("  vk.bin, demo.json  the verifying key and what was proved");
    println!("  cuzk-demo.toml     the configuration served (`cuzk serve --config` it)");
    Ok(())
}

/// The configuration of the demo's daemon: test circuits on, a small memory budget, the
/// defaults otherwise (GPUs when built with `cuda` and present, else CPU provers).
fn demo_config(socket: &Path, memory_budget: &str) -> String {
    format!(
        "# Written by `cuzk demo`.\n\
         [daemon]\n\
         listen = \"unix://{}\"\n\
         test_circuits = true\n\
         drain_deadline_secs = 30\n\
         \n\
         [memory]\n\
         total_budget = \"{memory_budget}\"\n",
        socket.display()
    )
}

/// Submits the jobs, follows them, verifies their proofs and writes the timeline. Returns
/// the summary written to demo.json.
async fn drive(
    args: &DemoArgs,
    address: &str,
    dir: &Path,
    proofs_dir: &Path,
    running: &server::Running,
) -> Result<serde_json::Value> {
    let mut client = client::connect(address, 64 << 20).await?;
    let status = get_status(&mut client).await?;
    say_where_it_proves(&status);

    let spec = |partitions: usize| {
        serde_json::json!({
            "circuit": args.circuit, "log_size": args.log_size, "partitions": partitions,
        })
        .to_string()
    };
    let circuit_id = format!("test-{}-{}-0", args.circuit, args.log_size);
    println!(
        "\nsubmitting {} NORMAL jobs of {} partitions and one CRITICAL job of 1 partition \
         (circuit {circuit_id}: {} 2^{} constraints; its parameters are generated on first use)",
        args.jobs, args.partitions, args.circuit, args.log_size
    );
    let mut jobs = Vec::new();
    let plan = std::iter::repeat_n((proto::Priority::Normal, args.partitions), args.jobs)
        .chain(std::iter::once((proto::Priority::Critical, 1)));
    for (n, (priority, partitions)) in plan.enumerate() {
        let request = proto::SubmitProofRequest {
            request_id: format!("demo-{}-{n}", std::process::id()),
            proof_kind: proto::ProofKind::TestCircuit as i32,
            priority: priority as i32,
            vanilla_proof: spec(partitions).into_bytes(),
            ..Default::default()
        };
        let response = client
            .submit_proof(request)
            .await
            .map_err(client::status_error)?
            .into_inner();
        jobs.push(Job {
            id: response.job_id,
            priority,
            partitions,
            // After the submission returned: the first one includes generating the
            // parameters, which is not the job's time.
            submitted: Instant::now(),
            ended: None,
        });
        if n == 0 {
            // From here: the first submission generated the parameters, a second or more
            // of nothing else to draw.
            running.engine().record_timeline(TIMELINE_SPANS);
        }
    }
    println!("\ndaemon status, the jobs just submitted");
    client::print_status(&get_status(&mut client).await?);
    println!();
    let order = follow(&mut client, &mut jobs).await?;

    println!("\njob timings (ms)");
    println!(
        "{:<4} {:<9} {:>6} {:>7} {:>7} {:>10} {:>8} {:>8}",
        "job", "priority", "proofs", "queue", "params", "synthesis", "proving", "total"
    );
    for (n, job) in jobs.iter().enumerate() {
        let (r, _) = job
            .ended
            .as_ref()
            .expect("follow returns once every job ended");
        println!(
            "{:<4} {:<9} {:>6} {:>7} {:>7} {:>10} {:>8} {:>8}",
            n + 1,
            priority_name(job.priority),
            job.partitions,
            r.queue_wait_ms,
            r.srs_load_ms,
            r.synthesis_ms,
            r.gpu_compute_ms,
            r.total_ms
        );
    }
    let critical = jobs.len() - 1;
    let overtaken = order.iter().skip_while(|&&n| n != critical).count() - 1;
    println!(
        "\nended in this order: {}",
        order
            .iter()
            .map(|n| format!(
                "{}{}",
                n + 1,
                if *n == critical { " (CRITICAL)" } else { "" }
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "the CRITICAL job was submitted last and ended before {overtaken} of the {} jobs \
         submitted before it",
        jobs.len() - 1
    );

    let status = get_status(&mut client).await?;
    println!("\ndaemon status");
    client::print_status(&status);

    let failed: Vec<_> = jobs
        .iter()
        .enumerate()
        .filter_map(|(n, job)| {
            let (r, _) = job.ended.as_ref()?;
            (!client::completed(r)).then(|| format!("job {}: {}", n + 1, r.error_message))
        })
        .collect();
    if !failed.is_empty() {
        bail!("jobs failed: {}", failed.join("; "));
    }

    // Verified here, with the verifying key of the parameters the daemon proved with, and
    // once more with a wrong public input, which must fail.
    let params = running
        .kinds()
        .test_parameters(&circuit_id)
        .with_context(|| format!("the daemon has no parameters for {circuit_id}"))?;
    let vk_path = dir.join("vk.bin");
    write_verifying_key(
        &params.vk,
        std::io::BufWriter::new(std::fs::File::create(&vk_path)?),
    )
    .with_context(|| format!("cannot write {}", vk_path.display()))?;
    let pvk = prepare_verifying_key(&params.vk);
    let input = TestCircuit::by_name(&args.circuit, args.log_size, 0)?.public_input();
    let started = Instant::now();
    let mut summary_jobs = Vec::new();
    let mut proofs_checked = 0;
    for (n, job) in jobs.iter().enumerate() {
        let (r, _) = job.ended.as_ref().expect("every job ended");
        let proofs = Proof::read_many(&r.proof)
            .with_context(|| format!("job {}: the proof bytes do not parse", n + 1))?;
        ensure!(
            proofs.len() == job.partitions,
            "job {}: {} proofs for {} partitions",
            n + 1,
            proofs.len(),
            job.partitions
        );
        for (p, proof) in proofs.iter().enumerate() {
            ensure!(
                verify_proof(&pvk, proof, &[input])?,
                "job {} proof {p} does not verify",
                n + 1
            );
            ensure!(
                !verify_proof(&pvk, proof, &[input + Scalar::from(1u64)])?,
                "job {} proof {p} verifies with a wrong public input",
                n + 1
            );
            proofs_checked += 1;
        }
        let file = proofs_dir.join(format!("job-{}.proof", n + 1));
        std::fs::write(&file, &r.proof)
            .with_context(|| format!("cannot write {}", file.display()))?;
        summary_jobs.push(serde_json::json!({
            "job_id": job.id,
            "priority": priority_name(job.priority),
            "partitions": job.partitions,
            "proof_file": format!("proofs/job-{}.proof", n + 1),
            "total_ms": r.total_ms,
        }));
    }
    println!(
        "\n{proofs_checked} proofs verified with the circuit's verifying key in {:.0} ms \
         (each also rejected with a wrong public input)",
        started.elapsed().as_secs_f64() * 1e3
    );

    let timeline = running
        .engine()
        .take_timeline()
        .context("the engine recorded no timeline")?;
    let svg = dir.join("demo-timeline.svg");
    let title = format!(
        "cuzk demo: {} jobs of {} 2^{}",
        jobs.len(),
        args.circuit,
        args.log_size
    );
    std::fs::write(&svg, cuzk_core::timeline::render_svg(&timeline, &title))
        .with_context(|| format!("cannot write {}", svg.display()))?;
    println!("timeline: {}", svg.display());

    Ok(serde_json::json!({
        "circuit": args.circuit,
        "log_size": args.log_size,
        "seed": 0,
        "circuit_id": circuit_id,
        "verifying_key": "vk.bin",
        "gpus": status.gpus.len(),
        "order": order.iter().map(|n| n + 1).collect::<Vec<_>>(),
        "jobs": summary_jobs,
    }))
}

/// Says whether the jobs will be proved on GPUs or on the CPU, and why.
fn say_where_it_proves(status: &proto::GetStatusResponse) {
    if status.gpus.is_empty() {
        let why = if cfg!(feature = "cuda") {
            "built with cuda, but no GPU was found"
        } else {
            "built without the cuda feature"
        };
        println!("proving on the CPU ({why})");
    } else {
        let names: Vec<_> = status
            .gpus
            .iter()
            .map(|g| format!("GPU {} {}", g.ordinal, g.name))
            .collect();
        println!("proving on the GPU workers: {}", names.join(", "));
    }
}

async fn get_status(client: &mut Client) -> Result<proto::GetStatusResponse> {
    Ok(client
        .get_status(proto::GetStatusRequest {})
        .await
        .map_err(client::status_error)?
        .into_inner())
}

/// Waits for every job, one line per job redrawn while they run on a terminal (a line per
/// ending otherwise). Returns the jobs' indices in the order they ended.
async fn follow(client: &mut Client, jobs: &mut [Job]) -> Result<Vec<usize>> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    for (n, job) in jobs.iter().enumerate() {
        let (mut client, id, tx) = (client.clone(), job.id.clone(), tx.clone());
        tokio::spawn(async move {
            let ended = loop {
                let r = client
                    .await_proof(proto::AwaitProofRequest {
                        job_id: id.clone(),
                        timeout_ms: 10_000,
                    })
                    .await;
                match r {
                    Ok(r) => {
                        let r = r.into_inner();
                        if r.status != proto::await_proof_response::Status::Timeout as i32 {
                            break Ok(r);
                        }
                    }
                    Err(e) => break Err(client::status_error(e)),
                }
            };
            let _ = tx.send((n, ended));
        });
    }
    drop(tx);
    let live = std::io::stdout().is_terminal();
    let mut order = Vec::new();
    let mut drawn = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tokio::select! {
            ended = rx.recv() => {
                let Some((n, r)) = ended else { break };
                let r = r.with_context(|| format!("waiting for job {}", n + 1))?;
                jobs[n].ended = Some((r, jobs[n].submitted.elapsed()));
                order.push(n);
                if !live {
                    println!("{}", job_line(n, &jobs[n]));
                }
            }
            _ = tick.tick() => {}
        }
        if live {
            let mut out = std::io::stdout().lock();
            if drawn > 0 {
                write!(out, "\x1b[{drawn}A")?;
            }
            for (n, job) in jobs.iter().enumerate() {
                writeln!(out, "\x1b[K{}", job_line(n, job))?;
            }
            out.flush()?;
            drawn = jobs.len();
        }
        if order.len() == jobs.len() {
            break;
        }
    }
    ensure!(
        order.len() == jobs.len(),
        "{} jobs never ended",
        jobs.len() - order.len()
    );
    Ok(order)
}

fn job_line(n: usize, job: &Job) -> String {
    let head = format!(
        "job {} {:<8} {} partition{}",
        n + 1,
        priority_name(job.priority),
        job.partitions,
        if job.partitions == 1 { " " } else { "s" }
    );
    match &job.ended {
        None => format!(
            "{head}  in flight  {:5.1} s",
            job.submitted.elapsed().as_secs_f64()
        ),
        Some((r, took)) => {
            let status = proto::await_proof_response::Status::try_from(r.status)
                .map(|s| s.as_str_name())
                .unwrap_or("UNKNOWN");
            format!("{head}  {status:<9} {:5.1} s", took.as_secs_f64())
        }
    }
}

fn priority_name(p: proto::Priority) -> &'static str {
    match p {
        proto::Priority::Critical => "CRITICAL",
        proto::Priority::High => "HIGH",
        proto::Priority::Low => "LOW",
        _ => "NORMAL",
    }
}
