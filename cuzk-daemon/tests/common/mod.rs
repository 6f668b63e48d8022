//! The daemon process and gRPC helpers shared by the daemon's integration tests.
// Each test binary uses its own part of these helpers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;
use tonic::transport::{Channel, Endpoint, Uri};

pub mod proto {
    tonic::include_proto!("cuzk.v1");
}

pub use proto::await_proof_response::Status as JobStatus;
use proto::proving_engine_client::ProvingEngineClient;

pub type Client = ProvingEngineClient<Channel>;

pub const BIN: &str = env!("CARGO_BIN_EXE_cuzk");

/// A daemon process; killed if the test did not stop it.
pub struct Daemon {
    pub child: Child,
    pub address: String,
    pub dir: tempfile::TempDir,
}

impl Daemon {
    /// Starts `cuzk serve` with `[daemon] listen = address`, test circuits on, and `extra`
    /// TOML appended; waits until it answers.
    pub async fn start(address: Option<&str>, extra: &str) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        let address = match address {
            Some(a) => a.to_string(),
            None => format!("unix://{}", dir.path().join("cuzk.sock").display()),
        };
        let config = dir.path().join("cuzk.toml");
        std::fs::write(
            &config,
            format!(
                "[engine]\nsynthesis_threads = 1\ncpu_provers = 2\n{extra}\n[daemon]\nlisten = \"{address}\"\ntest_circuits = true\nlog_format = \"json\"\ndrain_deadline_secs = 2\n"
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("daemon.log")).unwrap();
        let child = Command::new(BIN)
            .args(["serve", "--config"])
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let daemon = Daemon {
            child,
            address,
            dir,
        };
        let started = Instant::now();
        while daemon.try_client().await.is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the daemon did not start:\n{}",
                daemon.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        daemon
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("daemon.log")).unwrap_or_default()
    }

    pub async fn try_client(&self) -> Option<Client> {
        let channel = if let Some(path) = self.address.strip_prefix("unix://") {
            let path = PathBuf::from(path);
            Endpoint::try_from("http://[::1]:0")
                .unwrap()
                .connect_with_connector(tower::service_fn(move |_: Uri| {
                    let path = path.clone();
                    async move {
                        Ok::<_, std::io::Error>(TokioIo::new(UnixStream::connect(path).await?))
                    }
                }))
                .await
                .ok()?
        } else {
            Endpoint::try_from(format!("http://{}", self.address))
                .unwrap()
                .connect()
                .await
                .ok()?
        };
        Some(
            ProvingEngineClient::new(channel)
                .max_encoding_message_size(512 << 20)
                .max_decoding_message_size(512 << 20),
        )
    }

    pub async fn client(&self) -> Client {
        self.try_client().await.expect("connect to the daemon")
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends SIGTERM.
    pub fn signal_term(&self) {
        // SAFETY: kill takes no pointers; it signals a child process this test started (and
        // has not waited for, so the pid is still its own).
        unsafe { libc::kill(self.pid(), libc::SIGTERM) };
    }

    /// Waits for the exit status.
    pub fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                started.elapsed() < within,
                "the daemon did not exit:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The daemon's peak resident memory.
    pub fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn test_request(spec: &str) -> proto::SubmitProofRequest {
    proto::SubmitProofRequest {
        proof_kind: proto::ProofKind::TestCircuit as i32,
        vanilla_proof: spec.as_bytes().to_vec(),
        ..Default::default()
    }
}

pub async fn submit(c: &mut Client, r: proto::SubmitProofRequest) -> Result<String, tonic::Status> {
    c.submit_proof(r).await.map(|r| r.into_inner().job_id)
}

pub async fn await_job(c: &mut Client, job_id: &str, timeout_ms: u64) -> proto::AwaitProofResponse {
    c.await_proof(proto::AwaitProofRequest {
        job_id: job_id.into(),
        timeout_ms,
    })
    .await
    .unwrap()
    .into_inner()
}

pub fn status_of(r: &proto::AwaitProofResponse) -> JobStatus {
    JobStatus::try_from(r.status).unwrap()
}
