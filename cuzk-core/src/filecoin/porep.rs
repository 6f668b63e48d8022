//! PoRep commit phase 2: the stacked-DRG circuits of a sealed sector, one per partition.
//!
//! The input is commit phase 1's output as filecoin-proofs-api serializes it (JSON), the
//! same bytes node software hands to `seal_commit_phase2`, bare or in Curio's envelope
//! ([`super::envelope`], whose SectorNum and SectorSize must agree with the request's
//! `sector_number` and `sector_size`). Before anything is queued the
//! request is checked the way the verifier will see it: the registered proof and sector
//! size agree with the JSON, the partition and challenge counts are the circuit's, the
//! commitments are field elements, the replica id is the one `miner_id` and
//! `sector_number` derive (so the proof verifies for the sector the caller names), and the
//! vanilla proofs verify.

use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::constants::{DefaultPieceDomain, DefaultPieceHasher};
use filecoin_proofs::parameters::setup_params;
use filecoin_proofs::types::VanillaSealProof;
use filecoin_proofs::{as_safe_commitment, MerkleTreeTrait};
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use filecoin_proofs_api::{ApiFeature, RegisteredSealProof};
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{self, generate_replica_id, StackedCompound, StackedDrg};

use super::envelope;
use super::error::FilecoinError;
use super::registry::{self, CircuitKind};
use super::FilecoinJob;
use crate::kind::Partition;

/// A POREP_SEAL_COMMIT request's fields.
#[derive(Clone, Copy, Debug)]
pub struct PoRepRequest<'a> {
    pub registered_proof: u64,
    pub sector_size: u64,
    /// The commit-phase-1 output JSON, bare or in Curio's envelope.
    pub c1_output: &'a [u8],
    pub miner_id: u64,
    pub sector_number: u64,
}

/// The partitions of a PoRep commit phase 2.
pub fn porep_c2(request: &PoRepRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
    let proof = registry::seal_proof(request.registered_proof)?;
    if proof.feature_enabled(ApiFeature::NonInteractivePoRep) {
        return Err(FilecoinError::Unsupported {
            proof: format!("{proof:?}"),
            reason: "non-interactive PoRep returns an aggregate of its partition proofs, \
                     which cuzk does not build"
                .into(),
        });
    }
    let sector_size = u64::from(proof.sector_size());
    registry::check_sector_size(request.sector_size, sector_size, proof)?;
    if request.c1_output.is_empty() {
        return Err(FilecoinError::invalid(
            "vanilla_proof",
            "empty (a POREP_SEAL_COMMIT request carries the commit-phase-1 output JSON, bare \
             or in Curio's envelope)",
        ));
    }
    let c1_json = envelope::unwrap(request.c1_output)?;
    if let Some(fields) = c1_json.envelope {
        check_envelope(fields, request, sector_size, proof)?;
    }
    let c1: SealCommitPhase1Output = serde_json::from_slice(&c1_json.json)
        .map_err(|e| FilecoinError::malformed(c1_json.what(), &c1_json.json, e))?;
    if c1.registered_proof != proof {
        return Err(FilecoinError::invalid(
            "registered_proof",
            format!(
                "the request says {proof:?} ({}) but the commit-phase-1 output was made for {:?}",
                request.registered_proof, c1.registered_proof
            ),
        ));
    }
    let partitions = by_shape!(sector_size, partitions(proof, c1, request))?;
    Ok(FilecoinJob {
        circuit_id: CircuitKind::PoRep.circuit_id(sector_size)?,
        kind: "porep-c2",
        partitions,
    })
}

/// Curio's envelope names the sector and its size again: both must be the request's.
fn check_envelope(
    fields: envelope::EnvelopeFields,
    request: &PoRepRequest<'_>,
    sector_size: u64,
    proof: RegisteredSealProof,
) -> Result<(), FilecoinError> {
    if fields.sector_size != sector_size {
        let request_says = if request.sector_size == 0 {
            format!("the registered proof {proof:?} is for {sector_size}-byte sectors")
        } else {
            format!("the request's sector_size is {}", request.sector_size)
        };
        return Err(FilecoinError::invalid(
            "sector_size",
            format!(
                "Curio's envelope says SectorSize {} but {request_says}",
                fields.sector_size
            ),
        ));
    }
    if fields.sector_num != request.sector_number {
        return Err(FilecoinError::invalid(
            "sector_number",
            format!(
                "Curio's envelope says SectorNum {} but the request's sector_number is {}",
                fields.sector_num, request.sector_number
            ),
        ));
    }
    Ok(())
}

fn partitions<Tree: 'static + MerkleTreeTrait>(
    proof: RegisteredSealProof,
    c1: SealCommitPhase1Output,
    request: &PoRepRequest<'_>,
) -> Result<Vec<Partition>, FilecoinError> {
    let config = proof.as_v1_config();
    let vanilla_proofs: Vec<Vec<VanillaSealProof<Tree>>> =
        c1.vanilla_proofs.try_into().map_err(|e: anyhow::Error| {
            FilecoinError::invalid(
                "vanilla_proof",
                format!("its vanilla proofs are not for {proof:?}'s sector shape: {e}"),
            )
        })?;

    let setup = setup_params(&config).map_err(|e| FilecoinError::invalid("registered_proof", e))?;
    let per_partition = setup.challenges.num_challenges_per_partition();
    let partition_count = usize::from(config.partitions);
    if vanilla_proofs.len() != partition_count {
        return Err(FilecoinError::Count {
            what: "partitions of vanilla proofs in the commit-phase-1 output".into(),
            expected: partition_count.to_string(),
            actual: vanilla_proofs.len(),
        });
    }
    for (k, challenges) in vanilla_proofs.iter().enumerate() {
        if challenges.len() != per_partition {
            return Err(FilecoinError::Count {
                what: format!("challenge proofs in partition {k} of the commit-phase-1 output"),
                expected: per_partition.to_string(),
                actual: challenges.len(),
            });
        }
    }

    for (name, value) in [
        ("comm_d", &c1.comm_d),
        ("comm_r", &c1.comm_r),
        ("seed", &c1.seed),
    ] {
        if value.iter().all(|&b| b == 0) {
            return Err(FilecoinError::invalid(
                "vanilla_proof",
                format!("{name} is all zero"),
            ));
        }
    }
    let comm_r: <Tree::Hasher as Hasher>::Domain = as_safe_commitment(&c1.comm_r, "comm_r")
        .map_err(|e| FilecoinError::invalid("vanilla_proof", format!("{e:#}")))?;
    let comm_d = DefaultPieceDomain::try_from_bytes(&c1.comm_d)
        .map_err(|e| FilecoinError::invalid("vanilla_proof", format!("comm_d: {e:#}")))?;

    let replica_id: <Tree::Hasher as Hasher>::Domain = generate_replica_id::<Tree::Hasher, _>(
        &registry::prover_id(request.miner_id),
        request.sector_number,
        &c1.ticket,
        c1.comm_d,
        &config.porep_id,
    );
    let c1_replica_id: <Tree::Hasher as Hasher>::Domain =
        <Tree::Hasher as Hasher>::Domain::try_from_bytes(c1.replica_id.as_ref())
            .map_err(|e| FilecoinError::invalid("vanilla_proof", format!("replica_id: {e:#}")))?;
    if replica_id != c1_replica_id {
        return Err(FilecoinError::invalid(
            "miner_id / sector_number",
            format!(
                "the commit-phase-1 output was sealed for another sector: its replica id is not \
                 the one of miner {} sector {} with its ticket and comm_d",
                request.miner_id, request.sector_number
            ),
        ));
    }

    let public_params = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::setup(&compound_proof::SetupParams {
        vanilla_params: setup,
        partitions: Some(partition_count),
        priority: false,
    })
    .map_err(|e| FilecoinError::invalid("registered_proof", e))?;
    let vanilla_params = &public_params.vanilla_params;

    let public_inputs = stacked::PublicInputs {
        replica_id,
        tau: Some(stacked::Tau { comm_d, comm_r }),
        k: None,
        seed: Some(c1.seed),
    };

    let verified = StackedDrg::<Tree, DefaultPieceHasher>::verify_all_partitions(
        vanilla_params,
        &public_inputs,
        &vanilla_proofs,
    )
    .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?;
    if !verified {
        return Err(FilecoinError::VanillaProof(
            "a challenge's labels, columns or Merkle paths do not match comm_d, comm_r and the \
             seed"
                .into(),
        ));
    }

    vanilla_proofs
        .iter()
        .enumerate()
        .map(|(k, vanilla)| {
            let circuit_error = |e: anyhow::Error| FilecoinError::Circuit {
                kind: "PoRep",
                partition: k,
                reason: format!("{e:#}"),
            };
            let circuit =
                <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
                    StackedDrg<'_, Tree, DefaultPieceHasher>,
                    _,
                >>::circuit(&public_inputs, (), vanilla, vanilla_params, Some(k))
                .map_err(circuit_error)?;
            let inputs =
                <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
                    StackedDrg<'_, Tree, DefaultPieceHasher>,
                    _,
                >>::generate_public_inputs(&public_inputs, vanilla_params, Some(k))
                .map_err(circuit_error)?;
            Ok(Partition::from_circuit(circuit, inputs))
        })
        .collect()
}
