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
use cuzk_core::Engine;
use tokio::net::{TcpListener, UnixListener};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;
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

pub async fn serve(config: DaemonConfig) -> Result<()> {
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
    let service = Service {
        engine: Arc::clone(&engine),
        kinds: Arc::new(Kinds::new(config.daemon.test_circuits)),
        draining: Arc::clone(&draining),
    };
    let max = config.daemon.max_message_bytes;
    let grpc = ProvingEngineServer::new(service)
        .max_decoding_message_size(max)
        .max_encoding_message_size(max);

    // Closed (set to true) once the drain is over: the listeners then stop.
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };

    let router = Server::builder().add_service(grpc);
    let server = match &listen {
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
    notify::ready();

    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    let reason = tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    };
    let deadline = Duration::from_secs(config.daemon.drain_deadline_secs);
    tracing::info!(reason, deadline_secs = deadline.as_secs(), "draining");
    notify::stopping();
    draining.store(true, Ordering::Release);
    let report = engine.shutdown(deadline).await;
    tracing::info!(
        drained = report.drained,
        cancelled = report.cancelled,
        threads_stopped = report.threads_stopped,
        "engine stopped"
    );
    let _ = stop_tx.send(true);
    server
        .await
        .context("the gRPC server task failed")?
        .context("the gRPC server failed")?;
    if let Some(http) = http {
        let _ = http.await;
    }
    if let Listen::Unix(path) = &listen {
        let _ = std::fs::remove_file(path);
    }
    tracing::info!("stopped");
    Ok(())
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
