//! The client side of `cuzk`: a connection to a daemon and the commands for people and
//! scripts (readable text, or `--json`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cuzk_core::filecoin::envelope;
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::config::{default_socket, parse_listen, Listen};

/// Where the systemd unit's daemon listens (`RuntimeDirectory=cuzk`).
const SYSTEMD_SOCKET: &str = "/run/cuzk/cuzk.sock";
use crate::proto::{self, proving_engine_client::ProvingEngineClient};

pub type Client = ProvingEngineClient<Channel>;

/// Connects to the daemon at `address` (as in `daemon.listen`; empty = the default socket).
pub async fn connect(address: &str, max_message_bytes: usize) -> Result<Client> {
    // Connecting is allowed to any address the user names. Without one: this user's default
    // socket, else the systemd unit's.
    let listen = match address.trim() {
        "" => Listen::Unix(
            [default_socket(), PathBuf::from(SYSTEMD_SOCKET)]
                .into_iter()
                .find(|p| p.exists())
                .unwrap_or_else(default_socket),
        ),
        given => parse_listen(given, true)?,
    };
    let channel = match &listen {
        Listen::Unix(path) => {
            let path: PathBuf = path.clone();
            // The URI is required by the API and unused: the connector decides.
            Endpoint::try_from("http://[::1]:0")?
                .connect_with_connector(tower::service_fn(move |_: Uri| {
                    let path = path.clone();
                    async move {
                        Ok::<_, std::io::Error>(TokioIo::new(UnixStream::connect(path).await?))
                    }
                }))
                .await
        }
        Listen::Tcp(addr) => {
            Endpoint::try_from(format!("http://{addr}"))?
                .connect()
                .await
        }
    }
    .with_context(|| {
        format!("cannot connect to the cuzk daemon at {listen} (is `cuzk serve` running?)")
    })?;
    Ok(ProvingEngineClient::new(channel)
        .max_decoding_message_size(max_message_bytes)
        .max_encoding_message_size(max_message_bytes))
}

/// Turns a gRPC error into a message with its code.
pub fn status_error(s: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{:?}: {}", s.code(), s.message())
}

/// What the user asked to prove.
pub struct SubmitArgs {
    /// A request file (`cuzk synth`'s PoSt output): every field but the priority and the
    /// request id comes from it.
    pub request: Option<PathBuf>,
    /// Empty when `request` names the kind.
    pub kind: String,
    pub priority: String,
    pub request_id: Option<String>,
    pub sector_size: u64,
    pub registered_proof: u64,
    pub vanilla_proof: Option<PathBuf>,
    /// Wrap `vanilla_proof` in Curio's envelope.
    pub curio_envelope: bool,
    pub vanilla_proofs: Vec<PathBuf>,
    pub test_spec: Option<String>,
    pub sector_number: u64,
    pub miner_id: u64,
    pub randomness: Option<String>,
    pub partition_index: u32,
    pub comm_r_old: Option<String>,
    pub comm_r_new: Option<String>,
    pub comm_d_new: Option<String>,
}

pub fn kind_from_name(name: &str) -> Result<proto::ProofKind> {
    Ok(match name {
        "porep" | "porep-c2" => proto::ProofKind::PorepSealCommit,
        "snap" | "snapdeals" => proto::ProofKind::SnapDealsUpdate,
        "wpost" | "window-post" => proto::ProofKind::WindowPostPartition,
        "winning" | "winning-post" => proto::ProofKind::WinningPost,
        "test" => proto::ProofKind::TestCircuit,
        other => bail!("unknown proof kind `{other}` (porep, snap, wpost, winning or test)"),
    })
}

pub fn priority_from_name(name: &str) -> Result<proto::Priority> {
    Ok(match name {
        "low" => proto::Priority::Low,
        "normal" => proto::Priority::Normal,
        "high" => proto::Priority::High,
        "critical" => proto::Priority::Critical,
        other => bail!("unknown priority `{other}` (low, normal, high or critical)"),
    })
}

/// The wire request for `args` (reads the input files).
pub fn submit_request(args: &SubmitArgs) -> Result<proto::SubmitProofRequest> {
    if let Some(path) = &args.request {
        return Ok(proto::SubmitProofRequest {
            request_id: args.request_id.clone().unwrap_or_default(),
            priority: priority_from_name(&args.priority)? as i32,
            ..crate::synth::RequestFile::read(path)?.to_request()?
        });
    }
    let kind = kind_from_name(&args.kind)?;
    let vanilla_proof = match (&args.vanilla_proof, &args.test_spec) {
        (Some(path), _) => {
            std::fs::read(path).with_context(|| format!("reading {}", path.display()))?
        }
        (None, Some(spec)) => spec.clone().into_bytes(),
        (None, None) => Vec::new(),
    };
    let vanilla_proof = if args.curio_envelope {
        curio_envelope(kind, args, vanilla_proof)?
    } else {
        vanilla_proof
    };
    let vanilla_proofs = args
        .vanilla_proofs
        .iter()
        .map(|p| std::fs::read(p).with_context(|| format!("reading {}", p.display())))
        .collect::<Result<Vec<_>>>()?;
    let hex32 = |value: &Option<String>, flag: &str| -> Result<Vec<u8>> {
        match value {
            Some(hex) => decode_hex(hex).with_context(|| format!("{flag} must be 64 hex digits")),
            None => Ok(Vec::new()),
        }
    };
    let randomness = hex32(&args.randomness, "--randomness")?;
    Ok(proto::SubmitProofRequest {
        request_id: args.request_id.clone().unwrap_or_default(),
        proof_kind: kind as i32,
        sector_size: args.sector_size,
        registered_proof: args.registered_proof,
        priority: priority_from_name(&args.priority)? as i32,
        vanilla_proof,
        vanilla_proofs,
        sector_number: args.sector_number,
        miner_id: args.miner_id,
        randomness,
        partition_index: args.partition_index,
        comm_r_old: hex32(&args.comm_r_old, "--comm-r-old")?,
        comm_r_new: hex32(&args.comm_r_new, "--comm-r-new")?,
        comm_d_new: hex32(&args.comm_d_new, "--comm-d-new")?,
    })
}

/// The commit-phase-1 output wrapped as Curio's client wraps it.
fn curio_envelope(kind: proto::ProofKind, args: &SubmitArgs, c1_json: Vec<u8>) -> Result<Vec<u8>> {
    if kind != proto::ProofKind::PorepSealCommit {
        bail!("--curio-envelope is for --kind porep only");
    }
    if args.vanilla_proof.is_none() {
        bail!("--curio-envelope wraps the file of --vanilla-proof, and none is given");
    }
    if args.sector_size == 0 {
        bail!("--curio-envelope needs --sector-size (the envelope's SectorSize)");
    }
    let opened = envelope::unwrap(&c1_json)?;
    if opened.envelope.is_some() {
        bail!("the --vanilla-proof file is in Curio's envelope already: send it without --curio-envelope");
    }
    Ok(envelope::wrap(
        args.sector_number,
        args.sector_size,
        &c1_json,
    ))
}

pub fn decode_hex(text: &str) -> Result<Vec<u8>> {
    let text = text.trim().trim_start_matches("0x");
    let digits = text
        .chars()
        .map(|c| {
            c.to_digit(16)
                .with_context(|| format!("`{c}` is not a hex digit"))
        })
        .collect::<Result<Vec<u32>>>()?;
    if !digits.len().is_multiple_of(2) {
        bail!("odd number of hex digits");
    }
    Ok(digits
        .chunks_exact(2)
        .map(|pair| (pair[0] * 16 + pair[1]) as u8)
        .collect())
}

/// `cuzk submit`: queues `request`, prints the job id.
pub async fn submit(c: &mut Client, request: proto::SubmitProofRequest, json: bool) -> Result<()> {
    let r = c
        .submit_proof(request)
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        println!(
            "{}",
            serde_json::json!({"job_id": r.job_id, "queue_position": r.queue_position})
        );
    } else {
        println!("{} (queue position {})", r.job_id, r.queue_position);
    }
    Ok(())
}

/// Whether a job's end is COMPLETED.
pub fn completed(r: &proto::AwaitProofResponse) -> bool {
    r.status == proto::await_proof_response::Status::Completed as i32
}

/// `cuzk cancel`.
pub async fn cancel(c: &mut Client, job_id: &str, json: bool) -> Result<()> {
    let r = c
        .cancel_proof(proto::CancelProofRequest {
            job_id: job_id.to_string(),
        })
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        println!(
            "{}",
            serde_json::json!({"job_id": job_id, "was_running": r.was_running})
        );
    } else if r.was_running {
        println!("{job_id}: cancelled (it was running)");
    } else {
        println!("{job_id}: cancelled (it had not started, or had ended)");
    }
    Ok(())
}

/// `cuzk status`.
pub async fn status(c: &mut Client, json: bool) -> Result<()> {
    let s = c
        .get_status(proto::GetStatusRequest {})
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        println!("{}", status_json(&s));
    } else {
        print_status(&s);
    }
    Ok(())
}

/// `cuzk metrics`.
pub async fn metrics(c: &mut Client) -> Result<()> {
    let m = c
        .get_metrics(proto::GetMetricsRequest {})
        .await
        .map_err(status_error)?
        .into_inner();
    print!("{}", m.prometheus_text);
    Ok(())
}

/// `cuzk preload`.
pub async fn preload(c: &mut Client, circuit_id: &str, json: bool) -> Result<()> {
    let r = c
        .preload_srs(proto::PreloadSrsRequest {
            circuit_id: circuit_id.to_string(),
        })
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        println!(
            "{}",
            serde_json::json!({"circuit_id": circuit_id, "already_loaded": r.already_loaded, "load_time_ms": r.load_time_ms})
        );
    } else if r.already_loaded {
        println!("{circuit_id}: already loaded");
    } else {
        println!("{circuit_id}: loaded in {} ms", r.load_time_ms);
    }
    Ok(())
}

/// `cuzk evict`.
pub async fn evict(c: &mut Client, circuit_id: &str, json: bool) -> Result<()> {
    let r = c
        .evict_srs(proto::EvictSrsRequest {
            circuit_id: circuit_id.to_string(),
        })
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        println!(
            "{}",
            serde_json::json!({"circuit_id": circuit_id, "was_loaded": r.was_loaded, "freed_bytes": r.freed_bytes})
        );
    } else if r.was_loaded {
        println!("{circuit_id}: evicted, {} MiB freed", r.freed_bytes >> 20);
    } else {
        println!("{circuit_id}: was not loaded");
    }
    Ok(())
}

/// Waits for a job, showing the elapsed time on stderr while it runs (when stderr is a
/// terminal). `timeout_ms` 0 waits for as long as it takes.
pub async fn await_with_progress(
    client: &mut Client,
    job_id: &str,
    timeout_ms: u64,
) -> Result<proto::AwaitProofResponse> {
    use std::io::IsTerminal;
    let show = std::io::stderr().is_terminal();
    let started = Instant::now();
    let step = Duration::from_secs(2);
    loop {
        let left = if timeout_ms == 0 {
            step
        } else {
            let elapsed = started.elapsed();
            let total = Duration::from_millis(timeout_ms);
            if elapsed >= total {
                return Ok(proto::AwaitProofResponse {
                    job_id: job_id.to_string(),
                    status: proto::await_proof_response::Status::Timeout as i32,
                    ..Default::default()
                });
            }
            step.min(total - elapsed)
        };
        let r = client
            .await_proof(proto::AwaitProofRequest {
                job_id: job_id.to_string(),
                timeout_ms: left.as_millis().max(1) as u64,
            })
            .await
            .map_err(status_error)?
            .into_inner();
        if r.status != proto::await_proof_response::Status::Timeout as i32 {
            if show {
                eprint!("\r\x1b[K");
            }
            return Ok(r);
        }
        if show {
            eprint!(
                "\rjob {job_id}: running, {:.0} s",
                started.elapsed().as_secs_f64()
            );
            let _ = std::io::stderr().flush();
        }
    }
}

/// A job's end for people or as JSON.
pub fn print_result(
    r: &proto::AwaitProofResponse,
    json: bool,
    proof_out: Option<&PathBuf>,
) -> Result<()> {
    let status = proto::await_proof_response::Status::try_from(r.status)
        .map(|s| s.as_str_name())
        .unwrap_or("UNKNOWN");
    if let Some(path) = proof_out {
        if !r.proof.is_empty() {
            std::fs::write(path, &r.proof)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    if json {
        println!(
            "{}",
            serde_json::json!({
                "job_id": r.job_id,
                "status": status,
                "proof_hex": hex(&r.proof),
                "proofs": r.proof.len() / 192,
                "error_message": r.error_message,
                "queue_wait_ms": r.queue_wait_ms,
                "srs_load_ms": r.srs_load_ms,
                "synthesis_ms": r.synthesis_ms,
                "gpu_compute_ms": r.gpu_compute_ms,
                "total_ms": r.total_ms,
            })
        );
    } else {
        println!("job {}: {status}", r.job_id);
        if !r.error_message.is_empty() {
            println!("  error: {}", r.error_message);
        }
        if !r.proof.is_empty() {
            println!(
                "  proofs: {} ({} bytes)",
                r.proof.len() / 192,
                r.proof.len()
            );
        }
        println!(
            "  times: queue {} ms, parameters {} ms, synthesis {} ms, proving {} ms, total {} ms",
            r.queue_wait_ms, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms, r.total_ms
        );
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The daemon's status for people.
pub fn print_status(s: &proto::GetStatusResponse) {
    println!(
        "uptime {} s, proofs completed {}, failed {}",
        s.uptime_seconds, s.total_proofs_completed, s.total_proofs_failed
    );
    for g in &s.gpus {
        println!(
            "GPU {}: {} ({} MiB free of {} MiB), busy {:.1}%, {}{}",
            g.ordinal,
            g.name,
            g.vram_free_bytes >> 20,
            g.vram_total_bytes >> 20,
            100.0 * g.busy_fraction,
            if g.job_ids_in_hand.is_empty() {
                "idle".to_string()
            } else {
                format!("working on {}", g.job_ids_in_hand.join(", "))
            },
            if g.out_of_rotation {
                ", OUT OF ROTATION (repeated GPU faults)"
            } else {
                ""
            }
        );
        for p in &g.parameters {
            println!(
                "  parameters {}: {}, {} MiB of VRAM, h_copies {}",
                p.circuit_id,
                if p.resident { "resident" } else { "streamed" },
                p.device_bytes >> 20,
                p.h_copies
            );
        }
    }
    if s.gpus.is_empty() {
        println!("no GPU in use (CPU provers)");
    }
    for q in &s.queues {
        println!(
            "queue {}: {} pending, {} in progress",
            q.proof_kind, q.pending, q.in_progress
        );
    }
    for x in &s.loaded_srs {
        let tier = proto::srs_status::Tier::try_from(x.tier)
            .map(|t| t.as_str_name())
            .unwrap_or("?");
        println!(
            "parameters {}: {tier}, {} MiB, {} in use",
            x.circuit_id,
            x.size_bytes >> 20,
            x.ref_count
        );
    }
}

/// The daemon's status as JSON.
pub fn status_json(s: &proto::GetStatusResponse) -> serde_json::Value {
    serde_json::json!({
        "uptime_seconds": s.uptime_seconds,
        "total_proofs_completed": s.total_proofs_completed,
        "total_proofs_failed": s.total_proofs_failed,
        "gpus": s.gpus.iter().map(|g| serde_json::json!({
            "ordinal": g.ordinal, "name": g.name,
            "vram_total_bytes": g.vram_total_bytes, "vram_free_bytes": g.vram_free_bytes,
            "busy_fraction": g.busy_fraction, "out_of_rotation": g.out_of_rotation,
            "job_ids_in_hand": g.job_ids_in_hand,
            "parameters": g.parameters.iter().map(|p| serde_json::json!({
                "circuit_id": p.circuit_id, "resident": p.resident,
                "h_copies": p.h_copies, "device_bytes": p.device_bytes,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "queues": s.queues.iter().map(|q| serde_json::json!({
            "proof_kind": q.proof_kind, "pending": q.pending, "in_progress": q.in_progress,
        })).collect::<Vec<_>>(),
        "loaded_srs": s.loaded_srs.iter().map(|x| serde_json::json!({
            "circuit_id": x.circuit_id,
            "tier": proto::srs_status::Tier::try_from(x.tier).map(|t| t.as_str_name()).unwrap_or("?"),
            "size_bytes": x.size_bytes, "ref_count": x.ref_count,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(file: PathBuf, kind: &str, sector_size: u64) -> SubmitArgs {
        SubmitArgs {
            request: None,
            kind: kind.into(),
            priority: "normal".into(),
            request_id: None,
            sector_size,
            registered_proof: 5,
            vanilla_proof: Some(file),
            curio_envelope: true,
            vanilla_proofs: vec![],
            test_spec: None,
            sector_number: 7,
            miner_id: 1000,
            randomness: None,
            partition_index: 0,
            comm_r_old: None,
            comm_r_new: None,
            comm_d_new: None,
        }
    }

    #[test]
    fn hex_is_decoded_by_character() {
        assert_eq!(decode_hex("0x0aFf").unwrap(), [0x0a, 0xff]);
        for bad in ["abc", "zz", "aé", "+f"] {
            assert!(decode_hex(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn curio_envelope_wraps_a_bare_file_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let c1 = br#"{"registered_proof":"StackedDrg2KiBV1_1"}"#;
        let bare = dir.path().join("c1.json");
        std::fs::write(&bare, c1).unwrap();
        let request = submit_request(&args(bare.clone(), "porep", 2048)).unwrap();
        let opened = envelope::unwrap(&request.vanilla_proof).unwrap();
        assert_eq!(&*opened.json, c1);
        let fields = opened.envelope.expect("wrapped");
        assert_eq!((fields.sector_num, fields.sector_size), (7, 2048));

        let wrapped = dir.path().join("envelope.json");
        std::fs::write(&wrapped, &request.vanilla_proof).unwrap();
        for (a, says) in [
            (args(wrapped, "porep", 2048), "in Curio's envelope already"),
            (args(bare.clone(), "porep", 0), "needs --sector-size"),
            (args(bare, "snap", 2048), "for --kind porep only"),
        ] {
            let err = submit_request(&a).unwrap_err().to_string();
            assert!(err.contains(says), "{err}");
        }
    }
}
