//! The optional HTTP listener: `GET /metrics` (Prometheus text) and `GET /status` (JSON), for
//! scrapers and health checks that do not speak gRPC.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use cuzk_core::Engine;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Serves until `stop` completes.
pub async fn spawn(
    addr: SocketAddr,
    engine: Arc<Engine>,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<JoinHandle<()>> {
    let listener = TcpListener::bind(addr).await?;
    let app = Router::new()
        .route("/metrics", get(metrics))
        .route("/status", get(status))
        .with_state(engine);
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await
        {
            tracing::warn!("the status listener failed: {e}");
        }
    }))
}

async fn metrics(State(engine): State<Arc<Engine>>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        engine.metrics(),
    )
}

async fn status(State(engine): State<Arc<Engine>>) -> Json<serde_json::Value> {
    let engine = Arc::clone(&engine);
    let s = tokio::task::spawn_blocking(move || engine.status()).await;
    Json(match s {
        Ok(s) => status_json(&s),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    })
}

/// The engine's status as JSON.
fn status_json(s: &cuzk_core::EngineStatus) -> serde_json::Value {
    serde_json::json!({
        "uptime_seconds": s.uptime.as_secs(),
        "total_proofs_completed": s.total_completed,
        "total_proofs_failed": s.total_failed,
        "self_check_failures": s.self_check_failures,
        "synthesis_threads": s.synthesis_threads,
        "synthesizing": s.synthesizing,
        "cpu_provers": s.cpu_provers,
        "gpu_workers": s.gpu_workers,
        "memory": {
            "reserved_bytes": s.memory_reserved_bytes,
            "peak_bytes": s.memory_peak_bytes,
            "budget_bytes": s.memory_budget_bytes,
        },
        "gpus": s.gpus.iter().map(|g| serde_json::json!({
            "ordinal": g.ordinal,
            "name": g.name,
            "vram_total_bytes": g.vram_total_bytes,
            "vram_free_bytes": g.vram_free_bytes,
            "busy_fraction": g.busy_fraction,
            "out_of_rotation": g.out_of_rotation,
            "jobs_in_hand": g.in_hand.iter().map(|(id, _)| id).collect::<Vec<_>>(),
            "parameters": g.parameters.iter().map(|p| serde_json::json!({
                "circuit_id": p.circuit_id,
                "resident": p.resident,
                "h_copies": p.h_copies,
                "device_bytes": p.device_bytes,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "queues": s.queues.iter().map(|q| serde_json::json!({
            "kind": q.kind, "pending": q.pending, "in_progress": q.in_progress,
        })).collect::<Vec<_>>(),
        "srs": s.srs.iter().map(|x| serde_json::json!({
            "circuit_id": x.circuit_id,
            "tier": format!("{:?}", x.tier).to_uppercase(),
            "size_bytes": x.size_bytes,
            "ref_count": x.ref_count,
        })).collect::<Vec<_>>(),
        "native_witness": s.native_witness.iter().map(|n| {
            use cuzk_core::native_witness::NativeWitnessState as State;
            match &n.state {
                State::Checking => serde_json::json!({
                    "circuit_id": n.circuit_id, "state": "checking",
                }),
                State::Trusted { checks, uses } => serde_json::json!({
                    "circuit_id": n.circuit_id, "state": "used", "checks": checks, "uses": uses,
                }),
                State::Refused { reason } => serde_json::json!({
                    "circuit_id": n.circuit_id, "state": "refused", "reason": reason,
                }),
            }
        }).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_core::native_witness::{NativeWitnessState, NativeWitnessStatus};
    use cuzk_core::{DeviceSrsStatus, GpuStatus};

    /// Whether each circuit id's native witness is used, and why not where it is not.
    #[test]
    fn status_says_which_native_witnesses_are_used() {
        let status = cuzk_core::EngineStatus {
            native_witness: vec![
                NativeWitnessStatus {
                    circuit_id: "wpost-32g".into(),
                    state: NativeWitnessState::Trusted { checks: 1, uses: 7 },
                },
                NativeWitnessStatus {
                    circuit_id: "winning-32g".into(),
                    state: NativeWitnessState::Refused {
                        reason: "aux values differ first at index 3 of 9".into(),
                    },
                },
            ],
            ..Default::default()
        };
        let json = status_json(&status);
        let n = &json["native_witness"];
        assert_eq!(n[0]["state"], "used");
        assert_eq!(n[0]["uses"], 7);
        assert_eq!(n[1]["state"], "refused");
        assert!(n[1]["reason"].as_str().unwrap().contains("index 3"));
    }

    /// Each GPU lists the parameter sets it holds, with residency, H's copies and VRAM.
    #[test]
    fn status_lists_each_gpus_parameter_sets() {
        let status = cuzk_core::EngineStatus {
            gpus: vec![GpuStatus {
                ordinal: 0,
                name: "GPU".into(),
                vram_total_bytes: 80 << 30,
                vram_free_bytes: 20 << 30,
                busy_fraction: 0.0,
                out_of_rotation: false,
                in_hand: Vec::new(),
                parameters: vec![DeviceSrsStatus {
                    circuit_id: "porep-32g".into(),
                    resident: true,
                    h_copies: 6,
                    device_bytes: 38 << 30,
                }],
            }],
            ..Default::default()
        };
        let json = status_json(&status);
        assert_eq!(
            json["gpus"][0]["parameters"],
            serde_json::json!([{
                "circuit_id": "porep-32g",
                "resident": true,
                "h_copies": 6,
                "device_bytes": 38u64 << 30,
            }])
        );
    }
}
