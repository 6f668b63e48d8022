//! Synthetic sectors checked by filecoin-proofs' own verifiers: storage-proofs'
//! `verify_all_partitions` for PoRep, and cuzk's intake (which runs the fallback PoSt
//! verifier and builds the real circuits) for every kind. Each also checks that a damaged
//! input is refused, so a verifier that accepted anything would fail here.

use filecoin_hashers::Domain;
use filecoin_proofs::constants::DefaultPieceHasher;
use filecoin_proofs::parameters::setup_params;
use filecoin_proofs::types::VanillaSealProof;
use filecoin_proofs::{as_safe_commitment, MerkleTreeTrait};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{self, StackedCompound, StackedDrg};

use super::*;
use crate::filecoin::{FilecoinError, FilecoinJob, PoRepRequest, PoStRequest, SnapRequest};

fn options(seed: u64) -> SynthOptions {
    SynthOptions {
        seed,
        miner_id: 1234,
        sector_number: 17,
    }
}

/// storage-proofs' verifier over the commit-phase-1 output, given directly.
fn verify_with_storage_proofs<Tree: 'static + MerkleTreeTrait>(synthetic: &SyntheticPoRep) -> bool {
    let c1 = &synthetic.commit_phase1;
    let config = c1.registered_proof.as_v1_config();
    let vanilla: Vec<Vec<VanillaSealProof<Tree>>> =
        c1.vanilla_proofs.clone().try_into().expect("the shape");
    let public_params = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::setup(&compound_proof::SetupParams {
        vanilla_params: setup_params(&config).unwrap(),
        partitions: Some(usize::from(config.partitions)),
        priority: false,
    })
    .unwrap();
    let public_inputs = stacked::PublicInputs {
        replica_id: Domain::try_from_bytes(c1.replica_id.as_ref()).unwrap(),
        tau: Some(stacked::Tau {
            comm_d: as_safe_commitment(&c1.comm_d, "comm_d").unwrap(),
            comm_r: as_safe_commitment(&c1.comm_r, "comm_r").unwrap(),
        }),
        k: None,
        seed: Some(c1.seed),
    };
    StackedDrg::<Tree, DefaultPieceHasher>::verify_all_partitions(
        &public_params.vanilla_params,
        &public_inputs,
        &vanilla,
    )
    .unwrap()
}

fn porep_request(synthetic: &SyntheticPoRep, json: &[u8]) -> Result<FilecoinJob, FilecoinError> {
    FilecoinJob::porep_c2(&PoRepRequest {
        registered_proof: synthetic.commit_phase1.registered_proof as u64,
        sector_size: 0,
        c1_output: json,
        miner_id: synthetic.miner_id,
        sector_number: synthetic.sector_number,
    })
}

fn check_porep<Tree: 'static + MerkleTreeTrait>(proof: RegisteredSealProof, partitions: usize) {
    let synthetic = porep(proof, &options(3)).unwrap();
    assert!(verify_with_storage_proofs::<Tree>(&synthetic), "{proof:?}");
    let json = synthetic.commit_phase1_json().unwrap();
    let job = porep_request(&synthetic, &json).unwrap();
    assert_eq!(job.partitions.len(), partitions);

    // The same options make the same sector; another seed another one.
    let again = porep(proof, &options(3)).unwrap();
    assert_eq!(again.commit_phase1_json().unwrap(), json);
    assert_ne!(
        porep(proof, &options(4)).unwrap().commit_phase1.comm_r,
        synthetic.commit_phase1.comm_r
    );

    // A comm_r that is not H(comm_c, comm_r_last) is refused.
    let mut wrong = porep(proof, &options(3)).unwrap();
    wrong.commit_phase1.comm_r[0] ^= 1;
    assert!(!verify_with_storage_proofs::<Tree>(&wrong));
    // So is the sector claimed by another miner (its replica id is not theirs).
    let mut other_miner = porep(proof, &options(3)).unwrap();
    other_miner.miner_id += 1;
    assert!(porep_request(&other_miner, &json).is_err());
}

/// A label changed in the JSON: the labeling no longer holds, and storage-proofs says so.
#[test]
fn a_changed_label_is_refused() {
    let proof = RegisteredSealProof::StackedDrg2KiBV1_1;
    let synthetic = porep(proof, &options(5)).unwrap();
    let mut c1: serde_json::Value =
        serde_json::from_slice(&synthetic.commit_phase1_json().unwrap()).unwrap();
    let labeling =
        &mut c1["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["labeling_proofs"][1]["parents"][0];
    let first = labeling
        .as_array_mut()
        .expect("a domain is an array of bytes");
    let byte = first[0].as_u64().unwrap();
    first[0] = serde_json::json!(byte ^ 1);
    let json = serde_json::to_vec(&c1).unwrap();
    match porep_request(&synthetic, &json) {
        Err(FilecoinError::VanillaProof(_)) => {}
        other => panic!(
            "expected a vanilla proof error, got {:?}",
            other.map(|j| j.partitions.len())
        ),
    }
}

#[test]
fn porep_2kib_verifies() {
    check_porep::<filecoin_proofs::constants::SectorShape2KiB>(
        RegisteredSealProof::StackedDrg2KiBV1_1,
        1,
    );
}

#[test]
fn porep_8mib_verifies() {
    check_porep::<filecoin_proofs::constants::SectorShape8MiB>(
        RegisteredSealProof::StackedDrg8MiBV1_1,
        1,
    );
}

/// A 32 GiB sector: 10 partitions of 18 challenges each, labels over 11 layers of a 2^30-node
/// graph, trees of 2^30 leaves.
#[test]
fn porep_32gib_verifies() {
    let synthetic = porep(RegisteredSealProof::StackedDrg32GiBV1_1, &options(6)).unwrap();
    assert!(verify_with_storage_proofs::<
        filecoin_proofs::constants::SectorShape32GiB,
    >(&synthetic));
    assert!(synthetic.challenged_nodes > 100);
    let json = synthetic.commit_phase1_json().unwrap();
    let job = porep_request(&synthetic, &json).unwrap();
    assert_eq!(job.partitions.len(), 10);
    assert_eq!(job.circuit_id, "porep-32g");
}

#[test]
fn interactive_porep_only() {
    let err = porep(
        RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
        &options(1),
    )
    .err()
    .expect("synthetic PoRep's challenges depend on comm_r");
    assert!(matches!(err, FilecoinError::Unsupported { .. }), "{err}");
}

fn post_request<'a>(synthetic: &'a SyntheticPoSt, proofs: &'a [Vec<u8>]) -> PoStRequest<'a> {
    PoStRequest {
        registered_proof: synthetic.registered_proof as u64,
        sector_size: 0,
        vanilla_proofs: proofs,
        miner_id: synthetic.miner_id,
        randomness: &synthetic.randomness,
        partition_index: 0,
    }
}

#[test]
fn winning_post_verifies() {
    for proof in [
        RegisteredPoStProof::StackedDrgWinning2KiBV1,
        RegisteredPoStProof::StackedDrgWinning32GiBV1,
    ] {
        let synthetic = post(proof, None, &options(7)).unwrap();
        assert_eq!(synthetic.vanilla_proofs.len(), 1);
        let job = FilecoinJob::winning_post(&post_request(&synthetic, &synthetic.vanilla_proofs))
            .unwrap();
        assert_eq!(job.partitions.len(), 1);
        // The proofs are for this randomness only.
        let mut other = post(proof, None, &options(7)).unwrap();
        other.randomness[0] ^= 1;
        assert!(
            FilecoinJob::winning_post(&post_request(&other, &synthetic.vanilla_proofs)).is_err()
        );
    }
    assert!(post(
        RegisteredPoStProof::StackedDrgWinning2KiBV1,
        Some(2),
        &options(1)
    )
    .is_err());
}

#[test]
fn window_post_verifies() {
    let small = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    let synthetic = post(small, Some(2), &options(8)).unwrap();
    assert_eq!(synthetic.vanilla_proofs.len(), 2);
    FilecoinJob::window_post_partition(&post_request(&synthetic, &synthetic.vanilla_proofs))
        .unwrap();
    // The same proofs under other randomness: the leaf challenges are not the ones opened.
    let mut other = post(small, Some(2), &options(8)).unwrap();
    other.randomness[0] ^= 1;
    assert!(
        FilecoinJob::window_post_partition(&post_request(&other, &synthetic.vanilla_proofs))
            .is_err()
    );
    assert!(
        post(small, Some(3), &options(1)).is_err(),
        "2 KiB partitions hold 2 sectors"
    );
}

/// A full 32 GiB WindowPoSt partition: 2349 sectors, 10 challenges each.
#[test]
fn window_post_32gib_partition_verifies() {
    let proof = RegisteredPoStProof::StackedDrgWindow32GiBV1_2;
    let synthetic = post(proof, None, &options(9)).unwrap();
    assert_eq!(synthetic.vanilla_proofs.len(), 2349);
    let job =
        FilecoinJob::window_post_partition(&post_request(&synthetic, &synthetic.vanilla_proofs))
            .unwrap();
    assert_eq!(job.circuit_id, "wpost-32g");
}

fn snap_request<'a>(synthetic: &'a SyntheticSnap, proofs: &'a [Vec<u8>]) -> SnapRequest<'a> {
    SnapRequest {
        registered_proof: synthetic.registered_proof_number(),
        sector_size: 0,
        vanilla_proofs: proofs,
        comm_r_old: &synthetic.comm_r_old,
        comm_r_new: &synthetic.comm_r_new,
        comm_d_new: &synthetic.comm_d_new,
    }
}

/// Runs cuzk's intake (storage-proofs-update's verifier, then the circuits) and expects a
/// refusal for failing verification.
fn expect_vanilla_refusal(synthetic: &SyntheticSnap, proofs: &[Vec<u8>], what: &str) {
    match FilecoinJob::snap_deals_update(&snap_request(synthetic, proofs)) {
        Err(FilecoinError::VanillaProof(_)) => {}
        other => panic!(
            "{what}: expected a vanilla proof error, got {:?}",
            other.map(|j| j.partitions.len())
        ),
    }
}

fn check_snap(sector_size: u64, partitions: usize, circuit_id: &str) {
    let synthetic = snap_of_size(sector_size, &options(21)).unwrap();
    assert_eq!(
        u64::from(synthetic.registered_proof.sector_size()),
        sector_size
    );
    assert_eq!(synthetic.vanilla_proofs.len(), partitions);
    let job = FilecoinJob::snap_deals_update(&snap_request(&synthetic, &synthetic.vanilla_proofs))
        .unwrap();
    assert_eq!(job.partitions.len(), partitions);
    assert_eq!(job.circuit_id, circuit_id);

    // The same seed makes the same bytes; another seed another update.
    let again = snap_of_size(sector_size, &options(21)).unwrap();
    assert_eq!(again.vanilla_proofs, synthetic.vanilla_proofs);
    assert_eq!(
        (again.comm_r_old, again.comm_r_new, again.comm_d_new),
        (
            synthetic.comm_r_old,
            synthetic.comm_r_new,
            synthetic.comm_d_new
        )
    );
    assert_ne!(
        snap_of_size(sector_size, &options(22)).unwrap().comm_r_new,
        synthetic.comm_r_new
    );

    // Another comm_d_new: the data paths no longer reach it, and rho changes with phi.
    let mut wrong = snap_of_size(sector_size, &options(21)).unwrap();
    wrong.comm_d_new[0] ^= 1;
    expect_vanilla_refusal(&wrong, &synthetic.vanilla_proofs, "comm_d_new");
    // Another comm_r_new: not H(comm_c, root_r_new), and other challenges.
    let mut wrong = snap_of_size(sector_size, &options(21)).unwrap();
    wrong.comm_r_new[0] ^= 1;
    expect_vanilla_refusal(&wrong, &synthetic.vanilla_proofs, "comm_r_new");
    // Another comm_r_old.
    let mut wrong = snap_of_size(sector_size, &options(21)).unwrap();
    wrong.comm_r_old[0] ^= 1;
    expect_vanilla_refusal(&wrong, &synthetic.vanilla_proofs, "comm_r_old");
}

#[test]
fn snap_2kib_verifies() {
    check_snap(2 << 10, 1, "snap-2k");
}

/// 8 MiB: four partitions, each proving its own quarter of the sector, so proofs in another
/// order are refused.
#[test]
fn snap_8mib_verifies() {
    check_snap(8 << 20, 4, "snap-8m");
    let synthetic = snap(
        filecoin_proofs_api::RegisteredUpdateProof::StackedDrg8MiBV1,
        &options(23),
    )
    .unwrap();
    let mut swapped = synthetic.vanilla_proofs.clone();
    swapped.swap(0, 1);
    expect_vanilla_refusal(&synthetic, &swapped, "partitions 0 and 1 swapped");
}

/// A 32 GiB update: 16 partitions of 86 challenges over trees of 2^30 leaves, whose opened
/// leaves differ from rho-group to rho-group.
#[test]
fn snap_32gib_verifies() {
    let started = std::time::Instant::now();
    let synthetic = snap_of_size(32 << 30, &options(24)).unwrap();
    let generated = started.elapsed();
    let job = FilecoinJob::snap_deals_update(&snap_request(&synthetic, &synthetic.vanilla_proofs))
        .unwrap();
    assert_eq!(job.partitions.len(), 16);
    assert_eq!(job.circuit_id, "snap-32g");
    eprintln!(
        "32 GiB update: generated in {generated:?}, verified and built in {:?}",
        started.elapsed() - generated
    );

    let mut data_leaves = std::collections::BTreeSet::new();
    for bytes in &synthetic.vanilla_proofs {
        let proof: storage_proofs_update::PartitionProof<
            filecoin_proofs::constants::SectorShape32GiB,
        > = bincode::deserialize(bytes).unwrap();
        assert_eq!(proof.challenge_proofs.len(), 86);
        assert_eq!(proof.apex_leafs.len(), 128);
        for challenge in &proof.challenge_proofs {
            data_leaves.insert(storage_proofs_core::merkle::MerkleProofTrait::leaf(
                &challenge.proof_d_new,
            ));
        }
    }
    assert!(
        data_leaves.len() > 100,
        "the opened data spans many rho-groups, not one value ({})",
        data_leaves.len()
    );
}

#[test]
fn snap_of_an_unknown_size_is_refused() {
    assert!(matches!(
        snap_of_size(4096, &options(1)),
        Err(FilecoinError::UnknownSectorSize(4096))
    ));
}

/// The real update circuits of a synthetic update are satisfied, with the public inputs the
/// intake derived (for the partitions `which` picks: each takes seconds at 8 MiB).
fn check_snap_circuits(sector_size: u64, which: impl Fn(usize) -> bool) {
    let synthetic = snap_of_size(sector_size, &options(25)).unwrap();
    let job = FilecoinJob::snap_deals_update(&snap_request(&synthetic, &synthetic.vanilla_proofs))
        .unwrap();
    for (k, partition) in job.partitions.iter().enumerate().filter(|(k, _)| which(*k)) {
        let assignment = partition.synthesize().unwrap();
        assert_eq!(assignment.first_unsatisfied(), None, "partition {k}");
        assert_eq!(
            assignment.input_assignment[1..],
            partition.public_inputs[..],
            "partition {k}"
        );
    }
}

#[test]
fn snap_2kib_circuit_is_satisfied() {
    check_snap_circuits(2 << 10, |_| true);
}

/// The last of four partitions: its challenges carry partition bits, and h = 10 selects the
/// rho of each of 1024 groups.
#[test]
fn snap_8mib_last_circuit_is_satisfied() {
    check_snap_circuits(8 << 20, |k| k == 3);
}
