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
    assert_eq!(submit(&mut c, keyed).await.unwrap(), first);

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
    let err = c
        .preload_srs(proto::PreloadSrsRequest {
            circuit_id: "porep-32g".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err:?}");
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
