//! The gRPC service `cuzk.v1.ProvingEngine` over the engine.
//!
//! Error contract: INVALID_ARGUMENT for a request that can never succeed (a circuit id that is
//! not a name among them), NOT_FOUND for an unknown job id or circuit id, FAILED_PRECONDITION
//! when the request is fine but the daemon lacks what it needs (a circuit's parameter file is
//! missing, damaged or outside the parameter folder: the operator fixes that and the same
//! request then succeeds), RESOURCE_EXHAUSTED when the queue is full, UNAVAILABLE while
//! draining. A failed proof is not a transport error: AwaitProof answers status FAILED with
//! the message.

// tonic's handlers return `tonic::Status`, a large error type, by the API's design; boxing it
// in the helpers would only be unboxed again at the boundary.
#![allow(clippy::result_large_err)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cuzk_core::srs::{SrsError, SrsTier};
use cuzk_core::{Engine, EngineError, GpuStatus, JobId, JobResult, JobState};
use tonic::{Request, Response, Status};

use crate::kinds::Kinds;
use crate::proto::{self, proving_engine_server::ProvingEngine};

/// Pinned staging memory per GPU (two 32 MiB buffers, see docs/architecture.md).
const PINNED_PER_GPU: u64 = 64 << 20;

/// The service; cheap to clone.
#[derive(Clone)]
pub struct Service {
    pub engine: Arc<Engine>,
    pub kinds: Arc<Kinds>,
    /// Set when shutdown begins: new work is refused with UNAVAILABLE.
    pub draining: Arc<AtomicBool>,
}

fn engine_status(e: EngineError) -> Status {
    match e {
        EngineError::QueueFull { .. } => Status::resource_exhausted(e.to_string()),
        EngineError::ShuttingDown => Status::unavailable(e.to_string()),
        EngineError::UnknownJob(_) => Status::not_found(e.to_string()),
        EngineError::InvalidRequest(_) | EngineError::Config(_) | EngineError::Filecoin(_) => {
            Status::invalid_argument(e.to_string())
        }
        EngineError::Srs(SrsError::InvalidId(_)) => Status::invalid_argument(e.to_string()),
        EngineError::Srs(SrsError::Unknown { .. }) => Status::not_found(e.to_string()),
        EngineError::Srs(
            SrsError::Missing { .. }
            | SrsError::OutsideFolder { .. }
            | SrsError::Unreadable { .. }
            | SrsError::Load { .. },
        ) => Status::failed_precondition(e.to_string()),
        EngineError::Spawn { .. } | EngineError::Gpu { .. } | EngineError::NoSuchGpu { .. } => {
            Status::internal(e.to_string())
        }
    }
}

/// A GPU's line in GetStatus.
fn gpu_status(g: &GpuStatus) -> proto::GpuStatus {
    let first = g.in_hand.first();
    proto::GpuStatus {
        ordinal: g.ordinal,
        name: g.name.clone(),
        vram_total_bytes: g.vram_total_bytes,
        vram_free_bytes: g.vram_free_bytes,
        current_job_id: first.map(|j| j.0.clone()).unwrap_or_default(),
        current_proof_kind: first.map(|j| j.1.clone()).unwrap_or_default(),
        out_of_rotation: g.out_of_rotation,
        job_ids_in_hand: g.in_hand.iter().map(|j| j.0.clone()).collect(),
        busy_fraction: g.busy_fraction,
        parameters: g
            .parameters
            .iter()
            .map(|p| proto::DeviceSrs {
                circuit_id: p.circuit_id.clone(),
                resident: p.resident,
                h_copies: p.h_copies,
                device_bytes: p.device_bytes,
            })
            .collect(),
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

/// The wire form of a job's end.
pub fn await_response(result: &JobResult) -> proto::AwaitProofResponse {
    use proto::await_proof_response::Status as S;
    let t = &result.timings;
    proto::AwaitProofResponse {
        job_id: result.job_id.0.clone(),
        status: match result.state {
            JobState::Completed => S::Completed,
            JobState::Failed => S::Failed,
            JobState::Cancelled => S::Cancelled,
            JobState::Queued | JobState::Running => S::Unknown,
        } as i32,
        proof: result.proof_bytes(),
        error_message: result.error.clone().unwrap_or_default(),
        queue_wait_ms: ms(t.queue_wait),
        srs_load_ms: ms(t.srs_load),
        synthesis_ms: ms(t.synthesis),
        gpu_compute_ms: ms(t.prove),
        total_ms: ms(t.total),
    }
}

impl Service {
    fn check_accepting(&self) -> Result<(), Status> {
        if self.draining.load(Ordering::Acquire) {
            return Err(Status::unavailable(
                "the daemon is shutting down; retry on another instance or later",
            ));
        }
        Ok(())
    }

    async fn submit(
        &self,
        req: proto::SubmitProofRequest,
    ) -> Result<proto::SubmitProofResponse, Status> {
        self.check_accepting()?;
        let (engine, kinds) = (Arc::clone(&self.engine), Arc::clone(&self.kinds));
        // Decoding may generate test parameters or parse a large input: off the runtime.
        let submitted = tokio::task::spawn_blocking(move || {
            let request = kinds
                .decode(&engine, &req)
                .map_err(|e| Status::invalid_argument(e.0))?;
            engine.submit(request).map_err(engine_status)
        })
        .await
        .map_err(|e| Status::internal(format!("the submission task failed: {e}")))??;
        Ok(proto::SubmitProofResponse {
            job_id: submitted.job_id.0,
            queue_position: submitted.queue_position.min(u32::MAX as usize) as u32,
            assigned_gpu: String::new(),
        })
    }

    async fn await_job(
        &self,
        job_id: &str,
        timeout_ms: u64,
    ) -> Result<proto::AwaitProofResponse, Status> {
        let id = JobId(job_id.to_string());
        let timeout = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms));
        match self
            .engine
            .await_result(&id, timeout)
            .await
            .map_err(engine_status)?
        {
            Some(result) => Ok(await_response(&result)),
            None => Ok(proto::AwaitProofResponse {
                job_id: job_id.to_string(),
                status: proto::await_proof_response::Status::Timeout as i32,
                ..Default::default()
            }),
        }
    }
}

#[tonic::async_trait]
impl ProvingEngine for Service {
    async fn submit_proof(
        &self,
        request: Request<proto::SubmitProofRequest>,
    ) -> Result<Response<proto::SubmitProofResponse>, Status> {
        Ok(Response::new(self.submit(request.into_inner()).await?))
    }

    async fn await_proof(
        &self,
        request: Request<proto::AwaitProofRequest>,
    ) -> Result<Response<proto::AwaitProofResponse>, Status> {
        let r = request.into_inner();
        Ok(Response::new(
            self.await_job(&r.job_id, r.timeout_ms).await?,
        ))
    }

    async fn prove(
        &self,
        request: Request<proto::ProveRequest>,
    ) -> Result<Response<proto::ProveResponse>, Status> {
        let submit = request
            .into_inner()
            .submit
            .ok_or_else(|| Status::invalid_argument("ProveRequest.submit is missing"))?;
        let submitted = self.submit(submit).await?;
        let result = self.await_job(&submitted.job_id, 0).await?;
        Ok(Response::new(proto::ProveResponse {
            result: Some(result),
        }))
    }

    async fn cancel_proof(
        &self,
        request: Request<proto::CancelProofRequest>,
    ) -> Result<Response<proto::CancelProofResponse>, Status> {
        let id = JobId(request.into_inner().job_id);
        let was_running = self.engine.cancel(&id).map_err(engine_status)?;
        Ok(Response::new(proto::CancelProofResponse { was_running }))
    }

    async fn get_status(
        &self,
        _: Request<proto::GetStatusRequest>,
    ) -> Result<Response<proto::GetStatusResponse>, Status> {
        let engine = Arc::clone(&self.engine);
        let s = tokio::task::spawn_blocking(move || engine.status())
            .await
            .map_err(|e| Status::internal(format!("the status task failed: {e}")))?;
        let pinned = PINNED_PER_GPU * s.gpus.len() as u64;
        Ok(Response::new(proto::GetStatusResponse {
            gpus: s.gpus.iter().map(gpu_status).collect(),
            loaded_srs: s
                .srs
                .iter()
                .map(|x| proto::SrsStatus {
                    circuit_id: x.circuit_id.clone(),
                    tier: match x.tier {
                        SrsTier::Hot => proto::srs_status::Tier::Hot,
                        SrsTier::Warm => proto::srs_status::Tier::Warm,
                        SrsTier::Cold => proto::srs_status::Tier::Cold,
                    } as i32,
                    size_bytes: x.size_bytes,
                    ref_count: x.ref_count,
                })
                .collect(),
            queues: s
                .queues
                .iter()
                .map(|q| proto::QueueStatus {
                    proof_kind: q.kind.clone(),
                    pending: q.pending as u32,
                    in_progress: q.in_progress as u32,
                })
                .collect(),
            total_proofs_completed: s.total_completed,
            total_proofs_failed: s.total_failed,
            uptime_seconds: s.uptime.as_secs(),
            pinned_memory_bytes: pinned,
            pinned_memory_limit_bytes: pinned,
        }))
    }

    async fn get_metrics(
        &self,
        _: Request<proto::GetMetricsRequest>,
    ) -> Result<Response<proto::GetMetricsResponse>, Status> {
        Ok(Response::new(proto::GetMetricsResponse {
            prometheus_text: self.engine.metrics(),
        }))
    }

    async fn preload_srs(
        &self,
        request: Request<proto::PreloadSrsRequest>,
    ) -> Result<Response<proto::PreloadSrsResponse>, Status> {
        let id = request.into_inner().circuit_id;
        let engine = Arc::clone(&self.engine);
        let (already_loaded, took) = tokio::task::spawn_blocking(move || engine.preload_srs(&id))
            .await
            .map_err(|e| Status::internal(format!("the preload task failed: {e}")))?
            .map_err(engine_status)?;
        Ok(Response::new(proto::PreloadSrsResponse {
            already_loaded,
            load_time_ms: ms(took),
        }))
    }

    async fn evict_srs(
        &self,
        request: Request<proto::EvictSrsRequest>,
    ) -> Result<Response<proto::EvictSrsResponse>, Status> {
        let (was_loaded, freed_bytes) = self
            .engine
            .evict_srs(&request.into_inner().circuit_id)
            .map_err(engine_status)?;
        Ok(Response::new(proto::EvictSrsResponse {
            was_loaded,
            freed_bytes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_core::DeviceSrsStatus;

    /// Each set a GPU holds reaches GetStatus as the engine reports it.
    #[test]
    fn a_gpus_parameter_sets_reach_get_status() {
        let held = |circuit_id: &str, resident, h_copies, device_bytes| DeviceSrsStatus {
            circuit_id: circuit_id.into(),
            resident,
            h_copies,
            device_bytes,
        };
        let g = gpu_status(&GpuStatus {
            ordinal: 1,
            name: "GPU".into(),
            vram_total_bytes: 80 << 30,
            vram_free_bytes: 20 << 30,
            busy_fraction: 0.5,
            out_of_rotation: false,
            in_hand: vec![("job-1".into(), "porep".into())],
            parameters: vec![
                held("porep-32g", true, 6, 38 << 30),
                held("wpost-32g", false, 1, 0),
            ],
        });
        let sets: Vec<_> = g
            .parameters
            .iter()
            .map(|p| {
                (
                    p.circuit_id.as_str(),
                    p.resident,
                    p.h_copies,
                    p.device_bytes,
                )
            })
            .collect();
        assert_eq!(
            sets,
            [("porep-32g", true, 6, 38 << 30), ("wpost-32g", false, 1, 0)]
        );
        assert_eq!(
            (g.current_job_id.as_str(), g.current_proof_kind.as_str()),
            ("job-1", "porep")
        );
    }
}
