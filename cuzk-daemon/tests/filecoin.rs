//! Filecoin's proof kinds end to end on 2 KiB sectors, CPU backend, through a real daemon:
//! filecoin-proofs seals a sector and makes the vanilla proofs, cuzk proves over gRPC, and
//! filecoin-proofs' verifiers check cuzk's proofs. Bad requests are refused at submission.
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

fn post_request(
    kind: ProofKind,
    number: u64,
    randomness: &[u8; 32],
    vanilla: Vec<u8>,
) -> proto::SubmitProofRequest {
    proto::SubmitProofRequest {
        proof_kind: kind as i32,
        registered_proof: number,
        sector_size: SECTOR_SIZE,
        vanilla_proofs: vec![vanilla],
        miner_id: MINER,
        randomness: randomness.to_vec(),
        partition_index: 0,
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

    // PoRep commit phase 2.
    let proof = prove(&mut c, porep_request(&sealed)).await;
    assert_eq!(proof.len(), 192, "one partition at 2 KiB");
    let verify = |proof: &[u8]| sealed.verify_seal(proof);
    assert!(
        verify(&proof),
        "filecoin-proofs' verify_seal accepts cuzk's PoRep proof"
    );
    assert!(!verify(&flipped(&proof)), "and refuses a changed one");

    // WinningPoSt.
    let r = post_randomness(&mut rng);
    let vanilla = sealed.post_vanilla_proof(WINNING, &r).unwrap();
    let proof = prove(
        &mut c,
        post_request(ProofKind::WinningPost, WINNING_NUMBER, &r, vanilla),
    )
    .await;
    assert_eq!(proof.len(), 192);
    let replicas = BTreeMap::from([(sector, PublicReplicaInfo::new(WINNING, sealed.comm_r))]);
    assert!(post::verify_winning_post(&r, &proof, &replicas, prover).unwrap());
    assert!(!post::verify_winning_post(&r, &flipped(&proof), &replicas, prover).unwrap_or(false));

    // One WindowPoSt partition.
    let r = post_randomness(&mut rng);
    let vanilla = sealed.post_vanilla_proof(WINDOW, &r).unwrap();
    let window = post_request(ProofKind::WindowPostPartition, WINDOW_NUMBER, &r, vanilla);
    let proof = prove(&mut c, window.clone()).await;
    assert_eq!(proof.len(), 192);
    let replicas = BTreeMap::from([(sector, PublicReplicaInfo::new(WINDOW, sealed.comm_r))]);
    let check =
        |p: &[u8]| post::verify_window_post(&r, &[(WINDOW, p)], &replicas, prover).unwrap_or(false);
    assert!(
        check(&proof),
        "filecoin-proofs' verify_window_post accepts it"
    );
    assert!(!check(&flipped(&proof)));

    // SnapDeals.
    let update = sealed.update(UPDATE, &mut rng).unwrap();
    let snap = proto::SubmitProofRequest {
        proof_kind: ProofKind::SnapDealsUpdate as i32,
        registered_proof: UPDATE_NUMBER,
        sector_size: SECTOR_SIZE,
        vanilla_proofs: update.vanilla_proofs.clone(),
        comm_r_old: update.comm_r_old.to_vec(),
        comm_r_new: update.comm_r_new.to_vec(),
        comm_d_new: update.comm_d_new.to_vec(),
        ..Default::default()
    };
    let proof = prove(&mut c, snap.clone()).await;
    let check = |p: &[u8]| {
        let (old, new, data) = (update.comm_r_old, update.comm_r_new, update.comm_d_new);
        verify_empty_sector_update_proof(UPDATE, p, old, new, data).unwrap_or(false)
    };
    assert!(check(&proof), "filecoin-proofs' update verifier accepts it");
    assert!(!check(&flipped(&proof)));

    refuses_bad_requests(&mut c, &sealed, &window, &snap).await;
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
    let mut cases: Vec<(&str, proto::SubmitProofRequest, &str)> = vec![
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
