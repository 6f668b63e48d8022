//! Filecoin's proof kinds end to end on 2 KiB sectors, CPU backend, through a real daemon:
//! filecoin-proofs seals a sector and makes the vanilla proofs, cuzk proves over gRPC, and
//! filecoin-proofs' verifiers check cuzk's proofs. Requests come in two shapes: as Curio's Go
//! client builds them, field by field (`curio`, below: its PoRep envelope, request ids,
//! priorities and the `Prove` call it makes), and as cuzk's own client sends them. Bad
//! requests are refused at submission.
//!
//! Parameters are generated once (`cuzk_core::filecoin::generate_parameters`) into
//! `target/tmp/filecoin-params-2k` and reused by later runs.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::proto::{self, ProofKind};
use common::*;
use cuzk_core::filecoin::sealing::{post_randomness, SealedSector};
use cuzk_core::filecoin::{generate_parameters, prover_id, CircuitKind, GenerateOptions};
use filecoin_proofs_api::update::verify_empty_sector_update_proof;
use filecoin_proofs_api::{
    post, PublicReplicaInfo, RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof,
    SectorId,
};
use tonic::Code;

const SECTOR_SIZE: u64 = 2048;
const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;
const SEAL_NUMBER: u64 = 5;
const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINNING_NUMBER: u64 = 0;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
const WINDOW_NUMBER: u64 = 10;
const UPDATE: RegisteredUpdateProof = RegisteredUpdateProof::StackedDrg2KiBV1;
const UPDATE_NUMBER: u64 = 0;
const MINER: u64 = 1000;
const SECTOR: u64 = 7;

/// The parameter cache, filled on first use, and the environment filecoin-proofs reads
/// (set before filecoin-proofs first reads its settings, in this process).
fn param_cache() -> PathBuf {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
            let dir = tmp.join("filecoin-params-2k");
            std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
            std::env::set_var("FIL_PROOFS_PARENT_CACHE", tmp.join("filecoin-parents"));
            let sets = generate_parameters(
                &dir,
                SECTOR_SIZE,
                &CircuitKind::ALL,
                GenerateOptions::default(),
                &mut rand::rngs::OsRng,
            )
            .expect("generate the 2 KiB parameters");
            for set in sets {
                eprintln!(
                    "{}: {} ({:.1} s)",
                    set.circuit_id,
                    if set.generated { "generated" } else { "cached" },
                    set.elapsed.as_secs_f64()
                );
            }
            dir
        })
        .clone()
}

/// Requests as Curio builds them (filecoin-project/curio: `lib/ffi/cuzk_funcs.go` for its
/// tasks, `tasks/proofshare/task_prove.go` for proofshare), written out field by field here
/// rather than through cuzk's client, so that this test fails if the daemon stops accepting
/// what Curio sends.
mod curio {
    use super::proto::{self, Priority, ProofKind};
    use base64::Engine as _;

    /// Go's `fmt` `%d` of a byte slice: `[1 2 3]` (Curio's WindowPoSt ids carry it).
    fn go_bytes(bytes: &[u8]) -> String {
        let items: Vec<String> = bytes.iter().map(u8::to_string).collect();
        format!("[{}]", items.join(" "))
    }

    /// Go's `json.Marshal` of `{SectorNum int64; Phase1Out []byte; SectorSize uint64}`: the
    /// []byte as standard base64.
    pub fn envelope(sector: u64, sector_size: u64, c1: &[u8]) -> Vec<u8> {
        let b64 = base64::engine::general_purpose::STANDARD.encode(c1);
        format!(r#"{{"SectorNum":{sector},"Phase1Out":"{b64}","SectorSize":{sector_size}}}"#)
            .into_bytes()
    }

    /// `request_id` "porep-<miner>-<sector>", NORMAL, the envelope, the size set.
    pub fn porep(
        miner: u64,
        sector: u64,
        size: u64,
        proof: u64,
        c1: &[u8],
    ) -> proto::SubmitProofRequest {
        proto::SubmitProofRequest {
            request_id: format!("porep-{miner}-{sector}"),
            proof_kind: ProofKind::PorepSealCommit as i32,
            sector_size: size,
            registered_proof: proof,
            priority: Priority::Normal as i32,
            vanilla_proof: envelope(sector, size, c1),
            sector_number: sector,
            miner_id: miner,
            ..Default::default()
        }
    }

    /// `request_id` "winpost-<miner>-<%x of randomness[:8]>", CRITICAL.
    pub fn winning(
        miner: u64,
        size: u64,
        proof: u64,
        randomness: &[u8; 32],
        vanilla: Vec<Vec<u8>>,
    ) -> proto::SubmitProofRequest {
        let hex: String = randomness[..8].iter().map(|b| format!("{b:02x}")).collect();
        proto::SubmitProofRequest {
            request_id: format!("winpost-{miner}-{hex}"),
            proof_kind: ProofKind::WinningPost as i32,
            sector_size: size,
            registered_proof: proof,
            priority: Priority::Critical as i32,
            vanilla_proofs: vanilla,
            miner_id: miner,
            randomness: randomness.to_vec(),
            ..Default::default()
        }
    }

    /// `request_id` "wdpost-<miner>-<partition>-<%d of randomness[:8]>", HIGH.
    pub fn window(
        miner: u64,
        size: u64,
        proof: u64,
        partition: u32,
        randomness: &[u8; 32],
        vanilla: Vec<Vec<u8>>,
    ) -> proto::SubmitProofRequest {
        proto::SubmitProofRequest {
            request_id: format!("wdpost-{miner}-{partition}-{}", go_bytes(&randomness[..8])),
            proof_kind: ProofKind::WindowPostPartition as i32,
            sector_size: size,
            registered_proof: proof,
            priority: Priority::High as i32,
            vanilla_proofs: vanilla,
            miner_id: miner,
            randomness: randomness.to_vec(),
            partition_index: partition,
            ..Default::default()
        }
    }

    /// `request_id` "snap-<miner>-<sector>", NORMAL, raw 32-byte commitments. Proofshare's
    /// (`ps-snap-<miner>-<sector>-<task>`) leaves `sector_size` 0.
    pub fn snap(
        miner: u64,
        sector: u64,
        size: u64,
        proof: u64,
        update: &cuzk_core::filecoin::sealing::SectorUpdate,
    ) -> proto::SubmitProofRequest {
        proto::SubmitProofRequest {
            request_id: format!("snap-{miner}-{sector}"),
            proof_kind: ProofKind::SnapDealsUpdate as i32,
            sector_size: size,
            registered_proof: proof,
            priority: Priority::Normal as i32,
            vanilla_proofs: update.vanilla_proofs.clone(),
            sector_number: sector,
            miner_id: miner,
            comm_r_old: update.comm_r_old.to_vec(),
            comm_r_new: update.comm_r_new.to_vec(),
            comm_d_new: update.comm_d_new.to_vec(),
            ..Default::default()
        }
    }

    /// Proofshare re-marshals the commit-phase-1 output through a Go struct
    /// (`Commit1OutRaw`) before wrapping it: the same keys and number arrays, in its struct
    /// order (top level: comm_d, comm_r, registered_proof, replica_id, seed, ticket,
    /// vanilla_proofs, which is alphabetical), without whitespace. serde_json's map orders
    /// keys alphabetically at every level, which reorders them the same way at the top.
    pub fn proofshare_c1(c1: &[u8]) -> Vec<u8> {
        let v: serde_json::Value = serde_json::from_slice(c1).unwrap();
        serde_json::to_vec(&v).unwrap()
    }
}

/// Curio's call: `Prove` (never SubmitProof and AwaitProof); the result must be COMPLETED with
/// proof bytes and the timings Curio logs.
async fn prove_as_curio(
    c: &mut Client,
    request: proto::SubmitProofRequest,
) -> proto::AwaitProofResponse {
    let id = request.request_id.clone();
    let r = c
        .prove(proto::ProveRequest {
            submit: Some(request),
        })
        .await
        .unwrap_or_else(|e| panic!("{id}: Prove: {e:?}"))
        .into_inner()
        .result
        .expect("a result");
    assert_eq!(
        status_of(&r),
        JobStatus::Completed,
        "{id}: {}",
        r.error_message
    );
    assert!(!r.proof.is_empty(), "{id}");
    // (gpu_compute_ms is the proving time, truncated to milliseconds: it may read 0.)
    assert!(
        r.total_ms > 0 && r.gpu_compute_ms <= r.total_ms,
        "{id}: total_ms {} gpu_compute_ms {}",
        r.total_ms,
        r.gpu_compute_ms
    );
    r
}

fn porep_request(sealed: &SealedSector) -> proto::SubmitProofRequest {
    proto::SubmitProofRequest {
        proof_kind: ProofKind::PorepSealCommit as i32,
        registered_proof: SEAL_NUMBER,
        sector_size: SECTOR_SIZE,
        vanilla_proof: sealed.commit_phase1_json(),
        miner_id: MINER,
        sector_number: SECTOR,
        ..Default::default()
    }
}

/// Proves `request` on the daemon and returns the proof bytes.
async fn prove(c: &mut Client, request: proto::SubmitProofRequest) -> Vec<u8> {
    let kind = request.proof_kind;
    let id = submit(c, request).await.expect("submitted");
    let r = await_job(c, &id, 0).await;
    assert_eq!(
        status_of(&r),
        JobStatus::Completed,
        "kind {kind}: {}",
        r.error_message
    );
    r.proof
}

fn flipped(proof: &[u8]) -> Vec<u8> {
    let mut p = proof.to_vec();
    p[100] ^= 1;
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filecoin_kinds_end_to_end_through_the_daemon() {
    let params = param_cache();
    let mut rng = rand::thread_rng();
    let sealed = SealedSector::seal(SEAL, MINER, SECTOR, &mut rng).expect("sealed");
    let daemon = Daemon::start(
        None,
        &format!("[srs]\nparam_cache = \"{}\"\n", params.display()),
    )
    .await;
    let mut c = daemon.client().await;
    let (prover, sector) = (prover_id(MINER), SectorId::from(SECTOR));
    let verify = |proof: &[u8]| sealed.verify_seal(proof);

    // PoRep commit phase 2 as Curio sends it: its envelope, through Prove. Curio checks the
    // bytes with VerifySeal: 192 bytes per partition, one partition at 2 KiB.
    let c1 = sealed.commit_phase1_json();
    let porep = curio::porep(MINER, SECTOR, SECTOR_SIZE, SEAL_NUMBER, &c1);
    let first = prove_as_curio(&mut c, porep.clone()).await;
    assert_eq!(first.proof.len(), 192, "one partition at 2 KiB");
    assert!(
        verify(&first.proof),
        "filecoin-proofs' verify_seal accepts cuzk's PoRep proof"
    );
    assert!(!verify(&flipped(&first.proof)), "and refuses a changed one");
    // Curio repeats a request id after a timeout: the same job answers (Groth16 proofs are
    // randomized, so equal bytes mean the same job).
    let again = prove_as_curio(&mut c, porep).await;
    assert_eq!((&again.job_id, &again.proof), (&first.job_id, &first.proof));

    // The bare commit-phase-1 JSON, as cuzk's own client sends it.
    let proof = prove(&mut c, porep_request(&sealed)).await;
    assert!(verify(&proof), "the bare form proves too");

    // WinningPoSt.
    let r = post_randomness(&mut rng);
    let vanilla = sealed.post_vanilla_proof(WINNING, &r).unwrap();
    let request = curio::winning(MINER, SECTOR_SIZE, WINNING_NUMBER, &r, vec![vanilla]);
    let proof = prove_as_curio(&mut c, request).await.proof;
    assert_eq!(proof.len(), 192);
    let replicas = BTreeMap::from([(sector, PublicReplicaInfo::new(WINNING, sealed.comm_r))]);
    assert!(post::verify_winning_post(&r, &proof, &replicas, prover).unwrap());
    assert!(!post::verify_winning_post(&r, &flipped(&proof), &replicas, prover).unwrap_or(false));

    // One WindowPoSt partition.
    let r = post_randomness(&mut rng);
    let vanilla = sealed.post_vanilla_proof(WINDOW, &r).unwrap();
    let window = curio::window(MINER, SECTOR_SIZE, WINDOW_NUMBER, 0, &r, vec![vanilla]);
    assert!(window.request_id.contains('[') && window.request_id.contains(' '));
    let proof = prove_as_curio(&mut c, window.clone()).await.proof;
    assert_eq!(proof.len(), 192);
    let replicas = BTreeMap::from([(sector, PublicReplicaInfo::new(WINDOW, sealed.comm_r))]);
    let check =
        |p: &[u8]| post::verify_window_post(&r, &[(WINDOW, p)], &replicas, prover).unwrap_or(false);
    assert!(
        check(&proof),
        "filecoin-proofs' verify_window_post accepts it"
    );
    assert!(!check(&flipped(&proof)));
    // The first partitions of each circuit id (PoRep, WinningPoSt, WindowPoSt) checked their
    // native witnesses against the gadgets'; the bare-form PoRep above used PoRep's, and this
    // one uses WindowPoSt's; their proofs verify.
    let again = proto::SubmitProofRequest {
        request_id: format!("{}-again", window.request_id),
        ..window.clone()
    };
    let proof = prove_as_curio(&mut c, again).await.proof;
    assert!(check(&proof), "a proof from the native witness verifies");
    let metrics = c
        .get_metrics(proto::GetMetricsRequest {})
        .await
        .unwrap()
        .into_inner()
        .prometheus_text;
    for line in [
        "cuzk_native_witness_total{outcome=\"checked_equal\"} 3",
        "cuzk_native_witness_total{outcome=\"used\"} 2",
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }

    // SnapDeals, from Curio's tasks (sector_size set) and from proofshare (sector_size 0:
    // taken from the registered proof).
    let update = sealed.update(UPDATE, &mut rng).unwrap();
    let snap = curio::snap(MINER, SECTOR, SECTOR_SIZE, UPDATE_NUMBER, &update);
    let proofshare_snap = proto::SubmitProofRequest {
        request_id: format!("ps-snap-{MINER}-{SECTOR}-42"),
        sector_size: 0,
        ..snap.clone()
    };
    let check = |p: &[u8]| {
        let (old, new, data) = (update.comm_r_old, update.comm_r_new, update.comm_d_new);
        verify_empty_sector_update_proof(UPDATE, p, old, new, data).unwrap_or(false)
    };
    for request in [snap.clone(), proofshare_snap] {
        let id = request.request_id.clone();
        let proof = prove_as_curio(&mut c, request).await.proof;
        assert!(
            check(&proof),
            "{id}: filecoin-proofs' update verifier accepts it"
        );
        assert!(!check(&flipped(&proof)));
    }

    refuses_bad_requests(&mut c, &sealed, &window, &snap).await;
}

/// Proofshare's PoRep input (the commit-phase-1 output re-marshaled by Go, in the envelope)
/// gives the same circuits and public inputs as the bare output.
#[test]
fn proofshare_porep_input_builds_the_same_partitions() {
    use cuzk_core::filecoin::{FilecoinJob, PoRepRequest};
    param_cache(); // filecoin-proofs' environment
    let sealed = SealedSector::seal(SEAL, MINER, SECTOR, &mut rand::thread_rng()).expect("sealed");
    let c1 = sealed.commit_phase1_json();
    let remarshaled = curio::proofshare_c1(&c1);
    assert_ne!(remarshaled, c1, "the keys are reordered");
    let request = |c1_output: &[u8]| {
        FilecoinJob::porep_c2(&PoRepRequest {
            registered_proof: SEAL_NUMBER,
            sector_size: SECTOR_SIZE,
            c1_output,
            miner_id: MINER,
            sector_number: SECTOR,
        })
        .expect("a valid request")
    };
    let bare = request(&c1);
    let proofshare = request(&curio::envelope(SECTOR, SECTOR_SIZE, &remarshaled));
    assert_eq!(bare.partitions.len(), proofshare.partitions.len());
    for (a, b) in bare.partitions.iter().zip(&proofshare.partitions) {
        assert_eq!(a.public_inputs, b.public_inputs);
    }
}

/// With a circuit's parameter file missing, a valid request is FAILED_PRECONDITION (the
/// daemon lacks a file; the same request succeeds once it is there), naming the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_parameter_file_is_failed_precondition() {
    param_cache(); // filecoin-proofs' environment
    let sealed = SealedSector::seal(SEAL, MINER, SECTOR, &mut rand::thread_rng()).expect("sealed");
    let empty = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        None,
        &format!("[srs]\nparam_cache = \"{}\"\n", empty.path().display()),
    )
    .await;
    let mut c = daemon.client().await;
    let c1 = sealed.commit_phase1_json();
    let err = submit(
        &mut c,
        curio::porep(MINER, SECTOR, SECTOR_SIZE, SEAL_NUMBER, &c1),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert!(err.message().contains("does not exist"), "{err:?}");
    assert!(
        err.message().contains("v28-stacked-proof-of-replication"),
        "{err:?}"
    );
}

fn partitions(j: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
    j["vanilla_proofs"]["StackedDrg2KiBV1"]
        .as_array_mut()
        .expect("2 KiB vanilla proofs")
}

/// Each request is refused at submission with INVALID_ARGUMENT and a message naming the
/// problem.
async fn refuses_bad_requests(
    c: &mut Client,
    sealed: &SealedSector,
    window: &proto::SubmitProofRequest,
    snap: &proto::SubmitProofRequest,
) {
    let porep = porep_request(sealed);
    let json: serde_json::Value = serde_json::from_slice(&porep.vanilla_proof).unwrap();
    let with_json = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut j = json.clone();
        edit(&mut j);
        proto::SubmitProofRequest {
            vanilla_proof: serde_json::to_vec(&j).unwrap(),
            ..porep.clone()
        }
    };
    let c1 = sealed.commit_phase1_json();
    let curio_porep = curio::porep(MINER, SECTOR, SECTOR_SIZE, SEAL_NUMBER, &c1);
    let with_envelope = |text: String| proto::SubmitProofRequest {
        vanilla_proof: text.into_bytes(),
        ..curio_porep.clone()
    };
    let mut cases: Vec<(&str, proto::SubmitProofRequest, &str)> = vec![
        (
            "an envelope for another sector size",
            proto::SubmitProofRequest {
                vanilla_proof: curio::envelope(SECTOR, 4096, &c1),
                ..curio_porep.clone()
            },
            "Curio's envelope says SectorSize 4096 but the request's sector_size is 2048",
        ),
        (
            "an envelope for another sector size, request size 0",
            proto::SubmitProofRequest {
                sector_size: 0,
                vanilla_proof: curio::envelope(SECTOR, 4096, &c1),
                ..curio_porep.clone()
            },
            "SectorSize 4096 but the registered proof StackedDrg2KiBV1_1 is for 2048-byte sectors",
        ),
        (
            "an envelope for another sector",
            proto::SubmitProofRequest {
                vanilla_proof: curio::envelope(SECTOR + 1, SECTOR_SIZE, &c1),
                ..curio_porep.clone()
            },
            "Curio's envelope says SectorNum 8 but the request's sector_number is 7",
        ),
        (
            "a truncated envelope",
            with_envelope(r#"{"SectorNum":7,"Phase1Out":"e30="#.into()),
            "vanilla_proof (Curio's envelope {SectorNum, Phase1Out, SectorSize}) is malformed",
        ),
        (
            "an envelope without SectorSize",
            with_envelope(r#"{"SectorNum":7,"Phase1Out":"e30="}"#.into()),
            "missing field `SectorSize`",
        ),
        (
            "an envelope whose Phase1Out is not base64",
            with_envelope(r#"{"SectorNum":7,"Phase1Out":"{not base64}","SectorSize":2048}"#.into()),
            "vanilla_proof's Phase1Out (standard base64 of the commit-phase-1 output JSON",
        ),
        (
            "an envelope with an empty Phase1Out",
            with_envelope(r#"{"SectorNum":7,"Phase1Out":"","SectorSize":2048}"#.into()),
            "empty Phase1Out",
        ),
        (
            "an envelope around something else",
            proto::SubmitProofRequest {
                vanilla_proof: curio::envelope(SECTOR, SECTOR_SIZE, b"{\"comm_d\": 1}"),
                ..curio_porep.clone()
            },
            "vanilla_proof's Phase1Out, base64-decoded (the commit-phase-1 output JSON inside \
             Curio's envelope) is malformed",
        ),
        (
            "an envelope around a truncated commit-phase-1 output",
            proto::SubmitProofRequest {
                vanilla_proof: curio::envelope(SECTOR, SECTOR_SIZE, &c1[..c1.len() / 2]),
                ..curio_porep.clone()
            },
            "vanilla_proof's Phase1Out, base64-decoded",
        ),
        (
            "neither form",
            with_envelope("[1, 2, 3]".into()),
            "or Curio's envelope",
        ),
        (
            "C1 output of another sector size",
            proto::SubmitProofRequest {
                registered_proof: 6,
                sector_size: 8 << 20,
                ..porep.clone()
            },
            "was made for StackedDrg2KiBV1_1",
        ),
        (
            "sector size not the registered proof's",
            proto::SubmitProofRequest {
                sector_size: 4096,
                ..porep.clone()
            },
            "sector_size 4096 does not match",
        ),
        (
            "unknown registered proof",
            proto::SubmitProofRequest {
                registered_proof: 99,
                ..porep.clone()
            },
            "not a known seal",
        ),
        (
            "truncated JSON",
            proto::SubmitProofRequest {
                vanilla_proof: porep.vanilla_proof[..porep.vanilla_proof.len() / 2].to_vec(),
                ..porep.clone()
            },
            "malformed",
        ),
        (
            "a partition too many",
            with_json(&|j| {
                let p = partitions(j);
                p.push(p[0].clone());
            }),
            "expected 1, got 2",
        ),
        (
            "a challenge missing",
            with_json(&|j| {
                partitions(j)[0].as_array_mut().unwrap().pop();
            }),
            "challenge proofs in partition 0",
        ),
        (
            "a 31-byte comm_r",
            with_json(&|j| {
                j["comm_r"].as_array_mut().unwrap().pop();
            }),
            "malformed",
        ),
        (
            "another miner's sector",
            proto::SubmitProofRequest {
                miner_id: MINER + 1,
                ..porep.clone()
            },
            "sealed for another sector",
        ),
        (
            "another seed",
            with_json(&|j| {
                j["seed"][0] = serde_json::json!((j["seed"][0].as_u64().unwrap() + 1) % 256);
            }),
            "do not verify",
        ),
        (
            "a WindowPoSt proof type in a WinningPoSt request",
            proto::SubmitProofRequest {
                proof_kind: ProofKind::WinningPost as i32,
                ..window.clone()
            },
            "Window PoSt proof type in a Winning",
        ),
        (
            "no sectors",
            proto::SubmitProofRequest {
                vanilla_proofs: vec![],
                ..window.clone()
            },
            "expected 1 to 2, got 0",
        ),
        (
            "a garbage sector proof",
            proto::SubmitProofRequest {
                vanilla_proofs: vec![vec![7; 100]],
                ..window.clone()
            },
            "vanilla_proofs[0] (a bincode FallbackPoStSectorProof) is malformed",
        ),
        (
            "31 bytes of randomness",
            proto::SubmitProofRequest {
                randomness: window.randomness[..31].to_vec(),
                ..window.clone()
            },
            "randomness must be 32 bytes",
        ),
        (
            "randomness that is not a field element",
            proto::SubmitProofRequest {
                randomness: vec![0xff; 32],
                ..window.clone()
            },
            "randomness[31] &= 0x3f",
        ),
        (
            "another randomness than the vanilla proof's",
            proto::SubmitProofRequest {
                randomness: vec![1; 32],
                ..window.clone()
            },
            "do not verify",
        ),
        (
            "a SnapDeals partition too many",
            proto::SubmitProofRequest {
                vanilla_proofs: vec![snap.vanilla_proofs[0].clone(); 2],
                ..snap.clone()
            },
            "expected 1, got 2",
        ),
        (
            "a 31-byte comm_r_new",
            proto::SubmitProofRequest {
                comm_r_new: snap.comm_r_new[..31].to_vec(),
                ..snap.clone()
            },
            "comm_r_new must be 32 bytes",
        ),
        (
            "another comm_d_new",
            proto::SubmitProofRequest {
                comm_d_new: vec![1; 32],
                ..snap.clone()
            },
            "do not verify",
        ),
    ];
    for (what, request, expected) in cases.drain(..) {
        let err = submit(c, request).await.expect_err(what);
        assert_eq!(err.code(), Code::InvalidArgument, "{what}: {err:?}");
        assert!(
            err.message().contains(expected),
            "{what}: `{}` does not say `{expected}`",
            err.message()
        );
    }
}

/// The engine's fast path (recorded constraint matrices, witness, three products) gives
/// every Filecoin circuit the same assignment, density bitmaps included, as full synthesis,
/// so the same (r, s) give byte-identical proofs through either.
#[test]
fn filecoin_circuits_synthesize_the_same_through_matrices() {
    use cuzk_core::filecoin::{FilecoinJob, PoRepRequest, PoStRequest, SnapRequest};
    param_cache(); // filecoin-proofs' environment
    let mut rng = rand::thread_rng();
    let sealed = SealedSector::seal(SEAL, MINER, SECTOR, &mut rng).expect("sealed");
    let c1 = sealed.commit_phase1_json();
    let r = post_randomness(&mut rng);
    let winning = [sealed.post_vanilla_proof(WINNING, &r).unwrap()];
    let window = [sealed.post_vanilla_proof(WINDOW, &r).unwrap()];
    let update = sealed.update(UPDATE, &mut rng).unwrap();
    let post = |number, vanilla_proofs| PoStRequest {
        registered_proof: number,
        sector_size: SECTOR_SIZE,
        vanilla_proofs,
        miner_id: MINER,
        randomness: &r,
        partition_index: 0,
    };
    let jobs = [
        FilecoinJob::porep_c2(&PoRepRequest {
            registered_proof: SEAL_NUMBER,
            sector_size: SECTOR_SIZE,
            c1_output: &c1,
            miner_id: MINER,
            sector_number: SECTOR,
        }),
        FilecoinJob::winning_post(&post(WINNING_NUMBER, &winning)),
        FilecoinJob::window_post_partition(&post(WINDOW_NUMBER, &window)),
        FilecoinJob::snap_deals_update(&SnapRequest {
            registered_proof: UPDATE_NUMBER,
            sector_size: SECTOR_SIZE,
            vanilla_proofs: &update.vanilla_proofs,
            comm_r_old: &update.comm_r_old,
            comm_r_new: &update.comm_r_new,
            comm_d_new: &update.comm_d_new,
        }),
    ];
    for job in jobs {
        let job = job.expect("a valid request");
        for (k, partition) in job.partitions.iter().enumerate() {
            let full = partition.synthesize().expect("full synthesis");
            let fast = partition
                .synthesize_through_matrices()
                .expect("the matrix path")
                .expect("Filecoin partitions take the matrix path");
            assert!(full.a.len() > 1000, "{}: a real circuit", job.circuit_id);
            assert!(
                full == fast,
                "{} partition {k}: the matrix path differs from full synthesis",
                job.circuit_id
            );
        }
    }
}

/// Runs the `cuzk` binary with `args`; its stdout, or a panic with its stderr.
fn cli(args: &[&str]) -> String {
    let out = std::process::Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "cuzk {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn hex32(text: &str) -> [u8; 32] {
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect();
    bytes.try_into().expect("32 bytes")
}

/// Synthetic sectors, made by `cuzk synth` without sealing, proved through the daemon with
/// `cuzk prove` as an operator would, and each proof accepted by filecoin-proofs' own
/// verifier (and a changed one refused): the synthetic inputs are valid inputs of the real
/// circuits, not only of cuzk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn synthetic_sectors_prove_through_the_cli_and_verify() {
    let params = param_cache();
    let daemon = Daemon::start(
        None,
        &format!("[srs]\nparam_cache = \"{}\"\n", params.display()),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let address = daemon.address.as_str();
    let prove = |extra: &[&str], proof_out: &str| -> Vec<u8> {
        let mut args = vec!["prove", "--address", address, "--proof-out", proof_out];
        args.extend_from_slice(extra);
        cli(&args);
        std::fs::read(proof_out).unwrap()
    };
    let miner = "1234";
    let prover = prover_id(1234);

    // PoRep: the commit-phase-1 output, proved as node software sends it.
    let said = cli(&[
        "synth",
        "porep",
        "--sector-size",
        "2KiB",
        "--out",
        &path("c1.json"),
        "--seed",
        "11",
        "--miner-id",
        miner,
        "--sector-number",
        "3",
    ]);
    assert!(said.contains("--registered-proof 5"), "{said}");
    let proof = prove(
        &[
            "--kind",
            "porep",
            "--registered-proof",
            "5",
            "--vanilla-proof",
            &path("c1.json"),
            "--miner-id",
            miner,
            "--sector-number",
            "3",
        ],
        &path("porep.proof"),
    );
    let c1: filecoin_proofs_api::seal::SealCommitPhase1Output =
        serde_json::from_slice(&std::fs::read(path("c1.json")).unwrap()).unwrap();
    let verify = |p: &[u8]| {
        filecoin_proofs_api::seal::verify_seal(
            SEAL,
            c1.comm_r,
            c1.comm_d,
            prover,
            SectorId::from(3),
            c1.ticket,
            c1.seed,
            p,
        )
        .unwrap_or(false)
    };
    assert!(
        verify(&proof),
        "filecoin-proofs' verify_seal accepts the synthetic sector's proof"
    );
    assert!(!verify(&flipped(&proof)));

    // WindowPoSt (two sectors) and WinningPoSt, through request files.
    for (kind, registered, sectors) in
        [("window-post", WINDOW, "2"), ("winning-post", WINNING, "1")]
    {
        let file = path(&format!("{kind}.json"));
        cli(&[
            "synth",
            kind,
            "--sector-size",
            "2KiB",
            "--out",
            &file,
            "--seed",
            "12",
            "--miner-id",
            miner,
            "--sectors",
            sectors,
        ]);
        let proof = prove(&["--request", &file], &path(&format!("{kind}.proof")));
        let request: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let randomness = hex32(request["randomness"].as_str().unwrap());
        let replicas: BTreeMap<SectorId, PublicReplicaInfo> = request["sectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let comm_r = hex32(s["comm_r"].as_str().unwrap());
                let id = SectorId::from(s["sector_number"].as_u64().unwrap());
                (id, PublicReplicaInfo::new(registered, comm_r))
            })
            .collect();
        assert_eq!(replicas.len().to_string(), sectors);
        let check = |p: &[u8]| {
            match kind {
                "window-post" => {
                    post::verify_window_post(&randomness, &[(registered, p)], &replicas, prover)
                }
                _ => post::verify_winning_post(&randomness, p, &replicas, prover),
            }
            .unwrap_or(false)
        };
        assert!(
            check(&proof),
            "{kind}: filecoin-proofs' verifier accepts it"
        );
        assert!(!check(&flipped(&proof)), "{kind}");
    }

    // SnapDeals.
    let file = path("snap.json");
    cli(&[
        "synth",
        "snap",
        "--sector-size",
        "2KiB",
        "--out",
        &file,
        "--seed",
        "13",
    ]);
    let proof = prove(&["--request", &file], &path("snap.proof"));
    let request: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let comm = |name: &str| hex32(request[name].as_str().unwrap());
    let check = |p: &[u8]| {
        verify_empty_sector_update_proof(
            UPDATE,
            p,
            comm("comm_r_old"),
            comm("comm_r_new"),
            comm("comm_d_new"),
        )
        .unwrap_or(false)
    };
    assert!(check(&proof), "filecoin-proofs' update verifier accepts it");
    assert!(!check(&flipped(&proof)));
}

/// `cuzk bench` on a synthetic 2 KiB WinningPoSt with a WindowPoSt probe: it runs the engine
/// to the end and writes its figures.
#[test]
fn cuzk_bench_measures_synthetic_inputs() {
    let params = param_cache();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let config = dir.path().join("bench.toml");
    std::fs::write(&config, "[engine]\nsynthesis_threads = 1\n").unwrap();
    let said = cli(&[
        "bench",
        "--config",
        config.to_str().unwrap(),
        "--kind",
        "winning-post",
        "--sector-size",
        "2KiB",
        "--param-cache",
        params.to_str().unwrap(),
        "--in-flight",
        "1,2",
        "--jobs",
        "2",
        "--probe",
        "wpost",
        "--probe-every",
        "0.5",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        said.contains("in flight") && said.contains("winning-2k"),
        "{said}"
    );
    let figures: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(figures["partitions"], 1);
    assert_eq!(figures["complete"], true, "every point measured");
    let points = figures["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for (point, in_flight) in points.iter().zip([1, 2]) {
        assert_eq!(point["in_flight"], in_flight);
        assert!(
            point["seconds_per_proof"].as_f64().unwrap() > 0.0,
            "{point}"
        );
        assert!(point["probe_latency_seconds"].is_array(), "{point}");
    }
    // An input of another kind than --kind is refused before anything runs.
    let request = dir.path().join("snap.json");
    cli(&[
        "synth",
        "snap",
        "--sector-size",
        "2KiB",
        "--out",
        request.to_str().unwrap(),
    ]);
    let out = std::process::Command::new(BIN)
        .args([
            "bench",
            "--kind",
            "wpost",
            "--sector-size",
            "2KiB",
            "--param-cache",
        ])
        .arg(&params)
        .arg("--input")
        .arg(&request)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("proves snap-2k, not wpost-2k"));
}

/// `cuzk bench --witness-only`: the native witness of a synthetic partition is the gadgets'
/// (and, with `--full`, a full synthesis's), without parameters or an engine; `--at-once`
/// times several side by side.
#[test]
fn cuzk_bench_times_the_witness_alone() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("witness.json");
    let witness_only = |kind: &str, jobs: &str, extra: &[&str]| {
        let args = [
            "bench",
            "--kind",
            kind,
            "--sector-size",
            "2KiB",
            "--witness-only",
        ];
        cli(&[&args[..], &["--jobs", jobs], extra].concat())
    };
    let said = witness_only("window-post", "2", &["--json", json.to_str().unwrap()]);
    assert!(
        said.contains("wpost-2k on") && said.contains("native"),
        "{said}"
    );
    let figures: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(figures["equal"], true, "{figures}");
    assert_eq!(figures["native_seconds"].as_array().unwrap().len(), 2);
    assert_eq!(figures["gadgets_seconds"].as_array().unwrap().len(), 2);
    let said = witness_only(
        "snap",
        "1",
        &["--full", "--at-once", "2", "--json", json.to_str().unwrap()],
    );
    assert!(said.contains("2 at once: full"), "{said}");
    let figures: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(figures["equal"], true, "{figures}");
    assert!(
        figures["median_full_seconds"].as_f64().unwrap() > 0.0,
        "{figures}"
    );
    assert_eq!(figures["at_once"]["witnesses"], 2, "{figures}");
    assert!(
        figures["at_once"]["full_core_seconds_per_witness"]
            .as_f64()
            .unwrap()
            > 0.0,
        "{figures}"
    );
    assert!(
        figures["at_once"]["native_core_seconds_per_witness"]
            .as_f64()
            .unwrap()
            > 0.0,
        "{figures}"
    );
}
