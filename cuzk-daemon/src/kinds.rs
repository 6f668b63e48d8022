//! From a wire request to an engine request: the proof kinds the daemon accepts.
//!
//! Each wire kind maps to a decoder of its inputs. The Filecoin kinds (PoRep C2, WinningPoSt,
//! WindowPoSt partition, SnapDeals) are `cuzk_core::filecoin`'s: their inputs are checked and
//! their circuits built here, so a bad request is refused (INVALID_ARGUMENT) before it is
//! queued. The TEST_CIRCUIT kind runs cuzk's test circuits, when the configuration enables
//! it; their parameters are generated (deterministically, from the circuit's description) on
//! first use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cuzk_core::bellperson_lite::circuits::TestCircuit;
use cuzk_core::bellperson_lite::generator::generate_random_parameters;
use cuzk_core::bellperson_lite::Parameters;
use cuzk_core::filecoin::{FilecoinJob, PoRepRequest, PoStRequest, SnapRequest};
use cuzk_core::{CircuitProofs, Engine, Partition, Priority, ProofRequest};
use serde::Deserialize;

use crate::proto;

/// Why a request was refused (always INVALID_ARGUMENT on the wire).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadRequest(pub String);

/// The longest request id accepted: ids are kept in the job table (10,000 ended jobs) and
/// logged, so their length is bounded. Curio's are under 100 bytes.
const MAX_REQUEST_ID_BYTES: usize = 1024;

/// The largest test circuit accepted (2^20 constraints): parameters are generated on the
/// daemon's CPU on first use.
const MAX_TEST_LOG_SIZE: u32 = 20;
const MAX_TEST_PARTITIONS: usize = 16;

/// The description of a test circuit, the JSON `vanilla_proof` of a TEST_CIRCUIT request.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TestSpec {
    /// "mix" or "sha".
    pub circuit: String,
    pub log_size: u32,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "one")]
    pub partitions: usize,
}

fn one() -> usize {
    1
}

impl TestSpec {
    /// The engine's circuit id of this description's parameters.
    pub fn circuit_id(&self) -> String {
        format!("test-{}-{}-{}", self.circuit, self.log_size, self.seed)
    }
}

/// Decodes requests; keeps the test parameter sets it has generated and registered.
pub struct Kinds {
    test_circuits: bool,
    /// By circuit id. Kept (the engine holds them too) so that a client in the same process,
    /// `cuzk demo`, can verify its proofs with their verifying key.
    registered: Mutex<HashMap<String, Arc<Parameters>>>,
}

impl Kinds {
    pub fn new(test_circuits: bool) -> Kinds {
        Kinds {
            test_circuits,
            registered: Mutex::default(),
        }
    }

    /// The engine request for a wire request. May take a while (generating test parameters
    /// the first time): call it off the async runtime.
    pub fn decode(
        &self,
        engine: &Engine,
        req: &proto::SubmitProofRequest,
    ) -> Result<ProofRequest, BadRequest> {
        let bad = |m: String| Err(BadRequest(m));
        let priority = match proto::Priority::try_from(req.priority) {
            Ok(proto::Priority::Unspecified | proto::Priority::Normal) => Priority::Normal,
            Ok(proto::Priority::Low) => Priority::Low,
            Ok(proto::Priority::High) => Priority::High,
            Ok(proto::Priority::Critical) => Priority::Critical,
            Err(_) => return bad(format!("unknown priority {}", req.priority)),
        };
        let kind = match proto::ProofKind::try_from(req.proof_kind) {
            Ok(k) => k,
            Err(_) => return bad(format!("unknown proof kind {}", req.proof_kind)),
        };
        if req.request_id.len() > MAX_REQUEST_ID_BYTES {
            return bad(format!(
                "request_id is {} bytes; at most {MAX_REQUEST_ID_BYTES}",
                req.request_id.len()
            ));
        }
        let request_id = (!req.request_id.is_empty()).then(|| req.request_id.clone());
        match kind {
            proto::ProofKind::Unspecified => return bad("proof_kind is unspecified".into()),
            proto::ProofKind::TestCircuit => {
                if !self.test_circuits {
                    return bad("the TEST_CIRCUIT kind is disabled on this daemon (daemon.test_circuits = false)".into());
                }
                let (spec, circuit) = parse_test_spec(&req.vanilla_proof)?;
                let circuit_id = spec.circuit_id();
                self.ensure_test_params(engine, &spec, &circuit, &circuit_id)?;
                let partition = Partition::from_circuit(circuit.clone(), vec![circuit.public_input()]);
                let partitions = vec![partition; spec.partitions];
                return Ok(ProofRequest {
                    request_id,
                    circuit_id,
                    priority,
                    work: Box::new(CircuitProofs::new(format!("test-{}", spec.circuit), partitions)),
                });
            }
            _ => filecoin_job(req),
        }
        .map(|job| job.into_request(request_id, priority))
    }

    fn ensure_test_params(
        &self,
        engine: &Engine,
        spec: &TestSpec,
        circuit: &TestCircuit,
        id: &str,
    ) -> Result<(), BadRequest> {
        let mut registered = self.registered.lock().unwrap_or_else(|e| e.into_inner());
        if registered.contains_key(id) {
            return Ok(());
        }
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(spec.seed ^ u64::from(spec.log_size));
        let params = generate_random_parameters(circuit.clone(), &mut rng)
            .map_err(|e| BadRequest(format!("cannot generate parameters for {id}: {e}")))?;
        let params = Arc::new(params);
        engine
            .register_params(id, Arc::clone(&params))
            .map_err(|e| BadRequest(format!("cannot register the parameters of {id}: {e}")))?;
        registered.insert(id.to_string(), params);
        Ok(())
    }

    /// The parameters generated for a test circuit id, once a request has named it.
    pub fn test_parameters(&self, circuit_id: &str) -> Option<Arc<Parameters>> {
        let registered = self.registered.lock().unwrap_or_else(|e| e.into_inner());
        registered.get(circuit_id).cloned()
    }
}

/// The circuits of a Filecoin request (PoRep C2, WinningPoSt, WindowPoSt partition,
/// SnapDeals), checked as the daemon checks them at submission; `cuzk bench` builds its jobs
/// here too. Refusals carry filecoin's message (INVALID_ARGUMENT on the wire).
pub fn filecoin_job(req: &proto::SubmitProofRequest) -> Result<FilecoinJob, BadRequest> {
    let job = match proto::ProofKind::try_from(req.proof_kind) {
        Ok(proto::ProofKind::PorepSealCommit) => FilecoinJob::porep_c2(&PoRepRequest {
            registered_proof: req.registered_proof,
            sector_size: req.sector_size,
            c1_output: &req.vanilla_proof,
            miner_id: req.miner_id,
            sector_number: req.sector_number,
        }),
        Ok(proto::ProofKind::WinningPost) => FilecoinJob::winning_post(&post_request(req)),
        Ok(proto::ProofKind::WindowPostPartition) => {
            FilecoinJob::window_post_partition(&post_request(req))
        }
        Ok(proto::ProofKind::SnapDealsUpdate) => FilecoinJob::snap_deals_update(&SnapRequest {
            registered_proof: req.registered_proof,
            sector_size: req.sector_size,
            vanilla_proofs: &req.vanilla_proofs,
            comm_r_old: &req.comm_r_old,
            comm_r_new: &req.comm_r_new,
            comm_d_new: &req.comm_d_new,
        }),
        _ => {
            return Err(BadRequest(format!(
                "proof kind {} is not one of Filecoin's",
                req.proof_kind
            )))
        }
    };
    job.map_err(|e| BadRequest(e.to_string()))
}

fn post_request(req: &proto::SubmitProofRequest) -> PoStRequest<'_> {
    PoStRequest {
        registered_proof: req.registered_proof,
        sector_size: req.sector_size,
        vanilla_proofs: &req.vanilla_proofs,
        miner_id: req.miner_id,
        randomness: &req.randomness,
        partition_index: req.partition_index,
    }
}

/// The description and the circuit it names.
fn parse_test_spec(bytes: &[u8]) -> Result<(TestSpec, TestCircuit), BadRequest> {
    if bytes.is_empty() {
        return Err(BadRequest(
            "vanilla_proof is empty (a TEST_CIRCUIT request carries a JSON description)".into(),
        ));
    }
    let spec: TestSpec = serde_json::from_slice(bytes).map_err(|e| {
        BadRequest(format!(
            "vanilla_proof is not a test circuit description ({} bytes): {e}",
            bytes.len()
        ))
    })?;
    if spec.log_size > MAX_TEST_LOG_SIZE {
        return Err(BadRequest(format!(
            "log_size {} is above the test limit of {MAX_TEST_LOG_SIZE}",
            spec.log_size
        )));
    }
    if !(1..=MAX_TEST_PARTITIONS).contains(&spec.partitions) {
        return Err(BadRequest(format!(
            "partitions must be between 1 and {MAX_TEST_PARTITIONS}, not {}",
            spec.partitions
        )));
    }
    let circuit = TestCircuit::by_name(&spec.circuit, spec.log_size, spec.seed)
        .map_err(|e| BadRequest(e.to_string()))?;
    Ok((spec, circuit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_specs_are_checked() {
        let (ok, _) = parse_test_spec(br#"{"circuit":"mix","log_size":6}"#).unwrap();
        assert_eq!((ok.seed, ok.partitions), (0, 1));
        for (text, expected) in [
            ("", "empty"),
            ("garbage", "not a test circuit description"),
            (r#"{"circuit":"rsa","log_size":6}"#, "unknown test circuit"),
            (r#"{"circuit":"mix","log_size":40}"#, "above the test limit"),
            (
                r#"{"circuit":"mix","log_size":6,"partitions":0}"#,
                "partitions must be",
            ),
            (
                r#"{"circuit":"mix","log_size":6,"extra":1}"#,
                "unknown field",
            ),
        ] {
            let err = parse_test_spec(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
