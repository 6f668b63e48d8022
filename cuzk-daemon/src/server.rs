//! `cuzk serve`: the engine behind the gRPC service, an optional HTTP status listener, systemd
//! readiness, and a drain on SIGTERM / SIGINT.
//!
//! Start-up order: engine (and its preloaded parameters), then the listeners, then READY=1.
//! On a signal: STOPPING=1, new submissions get UNAVAILABLE, jobs in flight may finish until
//! `daemon.drain_deadline_secs` (then they are cancelled and their callers told so), the
//! listeners close once the open calls have answered, and the process exits 0.

use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use cuzk_core::{Engine, ShutdownReport};
use tokio::net::{TcpListener, UnixListener};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::{TcpListenerStream, UnixListenerStream};
use tokio_stream::StreamExt;
use tonic::transport::Server;

use crate::authority::AuthorityFix;
use crate::config::{DaemonConfig, Listen};
use crate::kinds::Kinds;
use crate::notify;
use crate::proto::proving_engine_server::ProvingEngineServer;
use crate::service::Service;
use crate::status_http;

/// A daemon that is serving: its engine and request decoder, and what `drain` needs to stop
/// it. `cuzk serve` holds one until a signal; `cuzk demo` holds one in-process.
pub struct Running {
    engine: Arc<Engine>,
    kinds: Arc<Kinds>,
    listen: Listen,
    /// Set at the start of the drain: new submissions are then refused (UNAVAILABLE).
    draining: Arc<AtomicBool>,
    /// Closed (set to true) once the drain is over: the listeners then stop.
    stop_tx: watch::Sender<bool>,
    grpc: JoinHandle<Result<(), tonic::transport::Error>>,
    http: Option<JoinHandle<()>>,
    drain_deadline: Duration,
}

/// `cuzk serve`: starts the daemon, tells systemd it is ready, and drains on SIGTERM or
/// SIGINT.
pub async fn serve(config: DaemonConfig) -> Result<()> {
    // Installed before the listeners open, so that a signal sent once the socket is there is
    // never the default action (exit without a drain).
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let running = start(config).await?;
    notify::ready();
    let reason = tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    };
    running.drain(reason).await?;
    Ok(())
}

/// Starts the engine (and its preloaded parameters), then the listeners.
pub async fn start(config: DaemonConfig) -> Result<Running> {
    let listen = config.listen()?;
    let status_addr = config.status_listen()?;
    let engine_config = config.engine.clone();
    let engine = tokio::task::spawn_blocking(move || Engine::start(engine_config))
        .await
        .context("the engine's start-up task failed")?
        .context("starting the engine")?;
    let engine = Arc::new(engine);
    let status = engine.status();
    tracing::info!(
        synthesis_threads = status.synthesis_threads,
        cpu_provers = status.cpu_provers,
        gpu_workers = status.gpu_workers,
        gpus = status.gpus.len(),
        memory_budget = status.memory_budget_bytes,
        "engine started"
    );

    let draining = Arc::new(AtomicBool::new(false));
    let kinds = Arc::new(Kinds::new(config.daemon.test_circuits));
    let service = Service {
        engine: Arc::clone(&engine),
        kinds: Arc::clone(&kinds),
        draining: Arc::clone(&draining),
    };
    let max = config.daemon.max_message_bytes;
    let grpc = ProvingEngineServer::new(service)
        .max_decoding_message_size(max)
        .max_encoding_message_size(max);

    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };

    let router = Server::builder().add_service(grpc);
    let grpc = match &listen {
        Listen::Unix(path) => {
            let listener = bind_unix(path)?;
            // Clients that send the socket path as :authority are answered too (authority.rs).
            let incoming = UnixListenerStream::new(listener).map(|c| c.map(AuthorityFix::new));
            tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped(stop_rx.clone())))
        }
        Listen::Tcp(addr) => {
            let listener = TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            tokio::spawn(router.serve_with_incoming_shutdown(
                TcpListenerStream::new(listener),
                stopped(stop_rx.clone()),
            ))
        }
    };
    let http = match status_addr {
        Some(addr) => Some(
            status_http::spawn(addr, Arc::clone(&engine), stopped(stop_rx.clone()))
                .await
                .with_context(|| format!("cannot serve the status page on {addr}"))?,
        ),
        None => None,
    };
    tracing::info!(%listen, status = ?status_addr, "listening");
    Ok(Running {
        engine,
        kinds,
        listen,
        draining,
        stop_tx,
        grpc,
        http,
        drain_deadline: Duration::from_secs(config.daemon.drain_deadline_secs),
    })
}

impl Running {
    /// The engine behind the service.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The request decoder (it holds the test circuits' parameters).
    pub fn kinds(&self) -> &Kinds {
        &self.kinds
    }

    /// Where the gRPC service listens.
    pub fn listen(&self) -> &Listen {
        &self.listen
    }

    /// Stops intake, lets the jobs in flight finish until `daemon.drain_deadline_secs` (then
    /// cancels them, and their callers are told so), closes the listeners once the open calls
    /// have answered, and removes the unix socket.
    pub async fn drain(self, reason: &str) -> Result<ShutdownReport> {
        tracing::info!(
            reason,
            deadline_secs = self.drain_deadline.as_secs(),
            "draining"
        );
        notify::stopping();
        self.draining.store(true, Ordering::Release);
        let report = self.engine.shutdown(self.drain_deadline).await;
        tracing::info!(
            drained = report.drained,
            cancelled = report.cancelled,
            threads_stopped = report.threads_stopped,
            "engine stopped"
        );
        let _ = self.stop_tx.send(true);
        self.grpc
            .await
            .context("the gRPC server task failed")?
            .context("the gRPC server failed")?;
        if let Some(http) = self.http {
            let _ = http.await;
        }
        if let Listen::Unix(path) = &self.listen {
            let _ = std::fs::remove_file(path);
        }
        tracing::info!("stopped");
        Ok(report)
    }
}

/// Binds a unix socket at `path`: creates its folder, replaces a stale socket left by a
/// previous run (never another kind of file), and makes it group-accessible (0660).
fn bind_unix(path: &std::path::Path) -> Result<UnixListener> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the socket folder {}", dir.display()))?;
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_socket() {
            bail!(
                "{} exists and is not a socket; refusing to replace it",
                path.display()
            );
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            bail!("another daemon is listening on {}", path.display());
        }
        std::fs::remove_file(path)
            .with_context(|| format!("cannot remove the stale socket {}", path.display()))?;
    }
    let listener = UnixListener::bind(path)
        .with_context(|| format!("cannot listen on unix://{}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
        .with_context(|| format!("cannot set the mode of {}", path.display()))?;
    Ok(listener)
}
