//! The real `cuzk serve` process, driven through the generated gRPC client over a unix socket
//! and over loopback TCP, with the CPU backend and the test circuits enabled.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::proto;
use common::*;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_over_a_unix_socket() {
    let daemon = Daemon::start(None, "").await;
    let mut c = daemon.client().await;

    // Submit and await: two partitions, 192 bytes each, timings filled in.
    let id = submit(
        &mut c,
        test_request(r#"{"circuit":"mix","log_size":6,"partitions":2}"#),
    )
    .await
    .unwrap();
    let r = await_job(&mut c, &id, 0).await;
    assert_eq!(status_of(&r), JobStatus::Completed, "{}", r.error_message);
    assert_eq!(r.proof.len(), 384);
    // Phase times are summed over partitions, which may run side by side.
    assert!(r.total_ms > 0 && r.gpu_compute_ms > 0, "{r:?}");

    // Idempotency.
    let mut keyed = test_request(r#"{"circuit":"mix","log_size":6}"#);
    keyed.request_id = "key-1".into();
    let first = submit(&mut c, keyed.clone()).await.unwrap();
    assert_eq!(submit(&mut c, keyed.clone()).await.unwrap(), first);
    // A cancelled job does not hold its id: the retry is a new job, which completes. The job
    // to cancel waits behind eight partitions of another (one synthesis thread), so it is
    // still queued when it is cancelled.
    let ahead = submit(
        &mut c,
        test_request(r#"{"circuit":"mix","log_size":14,"partitions":8}"#),
    )
    .await
    .unwrap();
    let mut slow = test_request(r#"{"circuit":"mix","log_size":14}"#);
    slow.request_id = "key-2".into();
    let cancelled = submit(&mut c, slow.clone()).await.unwrap();
    c.cancel_proof(proto::CancelProofRequest {
        job_id: cancelled.clone(),
    })
    .await
    .unwrap();
    assert_eq!(
        status_of(&await_job(&mut c, &cancelled, 0).await),
        JobStatus::Cancelled
    );
    c.cancel_proof(proto::CancelProofRequest { job_id: ahead })
        .await
        .unwrap();
    let mut retry = test_request(r#"{"circuit":"mix","log_size":6}"#);
    retry.request_id = "key-2".into();
    let retried = submit(&mut c, retry).await.unwrap();
    assert_ne!(retried, cancelled, "a new job for the retried id");
    assert_eq!(
        status_of(&await_job(&mut c, &retried, 0).await),
        JobStatus::Completed
    );

    // Prove in one call.
    let r = c
        .prove(proto::ProveRequest {
            submit: Some(test_request(r#"{"circuit":"sha","log_size":15}"#)),
        })
        .await
        .unwrap()
        .into_inner()
        .result
        .unwrap();
    assert_eq!(status_of(&r), JobStatus::Completed, "{}", r.error_message);
    assert_eq!(r.proof.len(), 192);

    // Long jobs fill the pipeline (one synthesis, a channel place and a prover each for two
    // provers); a small job submitted after them waits in the queue. Await with a timeout,
    // then cancel them all.
    let mut long = Vec::new();
    for _ in 0..6 {
        let spec = r#"{"circuit":"mix","log_size":17,"seed":1}"#;
        long.push(submit(&mut c, test_request(spec)).await.unwrap());
    }
    let queued = submit(
        &mut c,
        test_request(r#"{"circuit":"mix","log_size":6,"seed":2}"#),
    )
    .await
    .unwrap();
    assert_eq!(
        status_of(&await_job(&mut c, &long[0], 10).await),
        JobStatus::Timeout
    );
    let cancelled = c
        .cancel_proof(proto::CancelProofRequest {
            job_id: queued.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!cancelled.was_running);
    assert_eq!(
        status_of(&await_job(&mut c, &queued, 0).await),
        JobStatus::Cancelled
    );
    for id in &long {
        c.cancel_proof(proto::CancelProofRequest { job_id: id.clone() })
            .await
            .unwrap();
        let r = await_job(&mut c, id, 0).await;
        // The first ones may have finished before their cancel arrived.
        assert!(
            matches!(status_of(&r), JobStatus::Cancelled | JobStatus::Completed),
            "{r:?}"
        );
    }

    // Status and metrics.
    let s = c
        .get_status(proto::GetStatusRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(s.total_proofs_completed >= 3, "{s:?}");
    assert!(s
        .loaded_srs
        .iter()
        .any(|x| x.circuit_id == "test-mix-6-0" && x.tier == proto::srs_status::Tier::Hot as i32));
    let m = c
        .get_metrics(proto::GetMetricsRequest {})
        .await
        .unwrap()
        .into_inner();
    for name in [
        "cuzk_proofs_completed_total",
        "cuzk_proofs_failed_total",
        "cuzk_queue_depth",
        "cuzk_running_jobs",
        "cuzk_gpu_workers",
        "cuzk_uptime_seconds",
        "cuzk_proof_duration_seconds_bucket",
    ] {
        assert!(m.prometheus_text.contains(name), "{name} missing");
    }

    // Parameters: evict a loaded set; preload an unknown one.
    let e = c
        .evict_srs(proto::EvictSrsRequest {
            circuit_id: "test-mix-6-0".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(e.was_loaded && e.freed_bytes > 0);
    let e = c
        .evict_srs(proto::EvictSrsRequest {
            circuit_id: "test-mix-6-0".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!e.was_loaded);
    // A known circuit whose file is missing: the request is fine, the daemon lacks a file.
    let err = c
        .preload_srs(proto::PreloadSrsRequest {
            circuit_id: "porep-32g".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert!(err.message().contains("does not exist"), "{err:?}");
    let err = c
        .preload_srs(proto::PreloadSrsRequest {
            circuit_id: "no-such-circuit".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err:?}");
}

/// Circuit ids are names: a path in PreloadSRS or EvictSRS is refused before the daemon
/// looks at any file, even one that would parse as parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn circuit_ids_that_are_paths_are_refused() {
    let daemon = Daemon::start(None, "").await;
    let mut c = daemon.client().await;
    // Parameters outside the parameter folder, which a path could otherwise reach.
    let outside = daemon.dir.path().join("outside.params");
    std::fs::write(&outside, b"not parameters").unwrap();
    let absolute = outside.with_extension("").display().to_string();
    let long = "x".repeat(129);
    for id in [
        "../../etc/passwd",
        "../outside",
        absolute.as_str(),
        "",
        long.as_str(),
        ".hidden",
        "a/b",
    ] {
        let err = c
            .preload_srs(proto::PreloadSrsRequest {
                circuit_id: id.into(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "preload {id:?}: {err:?}");
        assert!(err.message().contains("is not a name"), "{id:?}: {err:?}");
        let err = c
            .evict_srs(proto::EvictSrsRequest {
                circuit_id: id.into(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "evict {id:?}: {err:?}");
    }
    assert!(
        !daemon.log().contains("outside.params"),
        "the daemon never named the file outside its folder"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_their_codes_and_the_daemon_goes_on() {
    let daemon = Daemon::start(None, "").await;
    let mut c = daemon.client().await;
    let unspecified = proto::SubmitProofRequest::default();
    let mut unknown_kind = test_request("{}");
    unknown_kind.proof_kind = 77;
    let mut porep = test_request("{}");
    porep.proof_kind = proto::ProofKind::PorepSealCommit as i32;
    for (what, request) in [
        ("unspecified kind", unspecified),
        ("unknown kind", unknown_kind),
        ("a PoRep request without inputs", porep),
        ("empty vanilla proof", test_request("")),
        ("malformed vanilla proof", test_request("{\"circuit\":")),
        ("a 2000-byte request id", {
            let mut r = test_request(r#"{"circuit":"mix","log_size":6}"#);
            r.request_id = "x".repeat(2000);
            r
        }),
        (
            "oversized test circuit",
            test_request(r#"{"circuit":"mix","log_size":30}"#),
        ),
    ] {
        let err = submit(&mut c, request).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{what}: {err:?}");
        assert!(!err.message().is_empty());
    }
    let err = c
        .prove(proto::ProveRequest { submit: None })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = c
        .await_proof(proto::AwaitProofRequest {
            job_id: "nope".into(),
            timeout_ms: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let err = c
        .cancel_proof(proto::CancelProofRequest {
            job_id: "nope".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);

    // 200 MiB of garbage as a vanilla proof: refused, and the daemon's memory stays bounded.
    let garbage = vec![0xA5u8; 200 << 20];
    let mut big = test_request("");
    big.vanilla_proof = garbage;
    let err = submit(&mut c, big).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    let peak = daemon.peak_rss();
    assert!(
        peak < 2 << 30,
        "peak RSS {} MiB after a 200 MiB request",
        peak >> 20
    );

    // Still serving.
    let id = submit(&mut c, test_request(r#"{"circuit":"mix","log_size":6}"#))
        .await
        .unwrap();
    assert_eq!(
        status_of(&await_job(&mut c, &id, 0).await),
        JobStatus::Completed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_proves_over_tcp() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let daemon = Daemon::start(Some(&format!("127.0.0.1:{port}")), "").await;
    let client = daemon.client().await;
    let calls: Vec<_> = (0..200)
        .map(|i| {
            let mut c = client.clone();
            tokio::spawn(async move {
                let spec = format!(r#"{{"circuit":"mix","log_size":6,"seed":{}}}"#, i % 3);
                c.prove(proto::ProveRequest {
                    submit: Some(test_request(&spec)),
                })
                .await
                .map(|r| r.into_inner().result.unwrap())
            })
        })
        .collect();
    for call in calls {
        let r = call.await.unwrap().unwrap();
        assert_eq!(status_of(&r), JobStatus::Completed, "{}", r.error_message);
        assert_eq!(r.proof.len(), 192);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_then_sigterm_with_jobs_in_flight() {
    let mut daemon = Daemon::start(None, "queue_capacity = 1").await;
    let mut c = daemon.client().await;
    let long = r#"{"circuit":"mix","log_size":17,"seed":3}"#;
    let running = submit(&mut c, test_request(long)).await.unwrap();
    // Wait until it has left the queue, then fill the queue's one place.
    let started = Instant::now();
    loop {
        let s = c
            .get_status(proto::GetStatusRequest {})
            .await
            .unwrap()
            .into_inner();
        if s.queues.iter().any(|q| q.in_progress > 0) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{s:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    submit(&mut c, test_request(long)).await.unwrap();
    let err = submit(&mut c, test_request(long)).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");

    // A caller waiting on the running job hears how it ended when the daemon drains.
    let mut waiter = c.clone();
    let waiting = tokio::spawn(async move { await_job(&mut waiter, &running, 0).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    daemon.signal_term();
    // While it drains (the jobs in flight have 2 s), new work is refused as UNAVAILABLE.
    let started = Instant::now();
    loop {
        let code = submit(&mut c, test_request(long)).await.unwrap_err().code();
        if code == Code::Unavailable {
            break;
        }
        assert_eq!(
            code,
            Code::ResourceExhausted,
            "before the drain: the queue is full"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "never UNAVAILABLE"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = tokio::task::spawn_blocking(move || {
        let status = daemon.wait_exit(Duration::from_secs(60));
        (status, daemon)
    })
    .await
    .unwrap();
    assert!(
        status.0.success(),
        "exit {:?}:\n{}",
        status.0,
        status.1.log()
    );
    let r = waiting.await.unwrap();
    assert!(
        matches!(status_of(&r), JobStatus::Cancelled | JobStatus::Completed),
        "{r:?}"
    );
    assert!(status.1.log().contains("engine stopped"));
}

#[test]
fn config_check_good_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    let out = Command::new(BIN)
        .args(["config", "print-default"])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&good, &out.stdout).unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[daemon]\nlisten = \"0.0.0.0:9820\"\n").unwrap();
    let check = |path: &Path| {
        Command::new(BIN)
            .args(["config", "check"])
            .arg(path)
            .output()
            .unwrap()
    };
    let ok = check(&good);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("OK"));
    let refused = check(&bad);
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("daemon.listen") && message.contains("allow_remote"),
        "{message}"
    );
}

/// A bare HTTP/2 client, to send what other gRPC stacks send: gRPC's C-core and grpc-java put
/// the socket path in `:authority` for `unix:` targets (C-core since 1.57 percent-encoded).
mod raw_h2 {
    use std::time::Duration;

    use prost::Message;
    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

    use super::proto;

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = (payload.len() as u32).to_be_bytes()[1..].to_vec();
        out.extend([kind, flags]);
        out.extend(stream.to_be_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// How a GetStatus call with this `:authority` ended.
    #[derive(Debug, PartialEq, Eq)]
    pub enum Outcome {
        /// grpc-status 0 and a GetStatusResponse.
        Answered { uptime_seconds: u64 },
        /// The stream was reset with this HTTP/2 error code (1: PROTOCOL_ERROR).
        Reset(u32),
        /// Anything else, described.
        Other(String),
    }

    /// Calls GetStatus once per authority, on streams 1, 3, ... of one connection.
    pub async fn get_status<S: AsyncRead + AsyncWrite + Unpin>(
        mut io: S,
        authorities: &[&str],
    ) -> Vec<Outcome> {
        let mut encoder = loona_hpack::Encoder::new();
        let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        out.extend(frame(0x4, 0, 0, &[])); // SETTINGS
        for (i, authority) in authorities.iter().enumerate() {
            let stream = 1 + 2 * i as u32;
            let headers: [(&[u8], &[u8]); 6] = [
                (b":method", b"POST"),
                (b":scheme", b"http"),
                (b":path", b"/cuzk.v1.ProvingEngine/GetStatus"),
                (b":authority", authority.as_bytes()),
                (b"content-type", b"application/grpc"),
                (b"te", b"trailers"),
            ];
            out.extend(frame(0x1, 0x4, stream, &encoder.encode(headers)));
            out.extend(frame(0x0, 0x1, stream, &[0, 0, 0, 0, 0])); // an empty message
        }
        io.write_all(&out).await.unwrap();

        let mut decoder = loona_hpack::Decoder::new();
        let mut outcomes: Vec<Option<Outcome>> = authorities.iter().map(|_| None).collect();
        let mut messages: Vec<Vec<u8>> = authorities.iter().map(|_| Vec::new()).collect();
        let read = async {
            while outcomes.iter().any(Option::is_none) {
                let mut header = [0u8; 9];
                if io.read_exact(&mut header).await.is_err() {
                    break;
                }
                let len = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
                let (kind, flags) = (header[3], header[4]);
                let stream = u32::from_be_bytes(header[5..9].try_into().unwrap()) & 0x7fff_ffff;
                let mut payload = vec![0u8; len];
                io.read_exact(&mut payload).await.unwrap();
                let Some(slot) = stream.checked_sub(1).map(|s| s as usize / 2) else {
                    if kind == 0x4 && flags & 1 == 0 {
                        io.write_all(&frame(0x4, 1, 0, &[])).await.unwrap(); // SETTINGS ACK
                    }
                    continue;
                };
                match kind {
                    0x0 => messages[slot].extend_from_slice(&payload),
                    0x1 => {
                        let headers = decoder.decode(&payload).unwrap();
                        let status = headers
                            .iter()
                            .find(|(n, _)| n == b"grpc-status")
                            .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
                        match (status.as_deref(), flags & 1 != 0) {
                            (Some("0"), true) => {
                                let m = &messages[slot];
                                outcomes[slot] = Some(
                                    match proto::GetStatusResponse::decode(
                                        m.get(5..).unwrap_or_default(),
                                    ) {
                                        Ok(r) => Outcome::Answered {
                                            uptime_seconds: r.uptime_seconds,
                                        },
                                        Err(e) => Outcome::Other(format!("a bad message: {e}")),
                                    },
                                );
                            }
                            (Some(s), _) => {
                                outcomes[slot] = Some(Outcome::Other(format!("grpc-status {s}")))
                            }
                            (None, _) => {}
                        }
                    }
                    0x3 => {
                        let code = u32::from_be_bytes(payload[..4].try_into().unwrap());
                        outcomes[slot] = Some(Outcome::Reset(code));
                    }
                    _ => {}
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), read)
            .await
            .expect("the daemon answered within 30 s");
        outcomes
            .into_iter()
            .map(|o| o.unwrap_or(Outcome::Other("no answer".into())))
            .collect()
    }
}

/// Clients of other gRPC stacks work on the unix socket: a socket path as `:authority`, raw
/// (grpc-java) or percent-encoded (C-core: Python, C++, Ruby, PHP), or localhost (grpc-go) are
/// all answered, on one connection whose header compression state carries across requests.
/// Over TCP, where no client sends such an authority, the HTTP/2 server's own check is seen
/// to refuse it, which is why the unix listener needs its fix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_path_as_authority_is_answered_on_the_unix_socket() {
    use raw_h2::Outcome;
    let daemon = Daemon::start(None, "").await;
    let path = daemon.address.strip_prefix("unix://").unwrap().to_string();
    let encoded = path.replace('/', "%2F");
    let authorities = [path.as_str(), encoded.as_str(), "localhost", path.as_str()];
    let io = tokio::net::UnixStream::connect(&path).await.unwrap();
    let outcomes = raw_h2::get_status(io, &authorities).await;
    for (authority, outcome) in authorities.iter().zip(&outcomes) {
        assert!(
            matches!(outcome, Outcome::Answered { .. }),
            "{authority}: {outcome:?}"
        );
    }

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tcp = Daemon::start(Some(&format!("127.0.0.1:{port}")), "").await;
    let io = tokio::net::TcpStream::connect(&tcp.address).await.unwrap();
    let outcomes = raw_h2::get_status(io, &[path.as_str(), "localhost"]).await;
    assert_eq!(
        outcomes[0],
        Outcome::Reset(1),
        "h2 refuses a path authority"
    );
    assert!(
        matches!(outcomes[1], Outcome::Answered { .. }),
        "{:?}",
        outcomes[1]
    );
}
