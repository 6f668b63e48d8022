//! SnapDeals: the empty-sector-update circuits, one per partition.
//!
//! The inputs are what node software passes to filecoin-proofs-api's
//! `generate_empty_sector_update_proof_with_vanilla`: one bincode `PartitionProof` per
//! partition and the three commitments. The vanilla proofs are verified against the
//! commitments before anything is queued.

use filecoin_hashers::Domain;
use filecoin_proofs::constants::DefaultPieceDomain;
use filecoin_proofs::types::SectorUpdateConfig;
use filecoin_proofs::{MerkleTreeTrait, TreeRHasher};
use filecoin_proofs_api::RegisteredUpdateProof;
use std::sync::Arc;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_core::proof::ProofScheme;

use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs, PublicParams, SetupParams,
};

use super::error::FilecoinError;
use super::registry::{self, CircuitKind};
use super::FilecoinJob;
use crate::kind::Partition;

type TreeRDomain = <TreeRHasher as filecoin_hashers::Hasher>::Domain;

/// A SNAP_DEALS_UPDATE request's fields.
#[derive(Clone, Copy, Debug)]
pub struct SnapRequest<'a> {
    pub registered_proof: u64,
    pub sector_size: u64,
    /// One bincode `PartitionProof` per partition, in partition order.
    pub vanilla_proofs: &'a [Vec<u8>],
    pub comm_r_old: &'a [u8],
    pub comm_r_new: &'a [u8],
    pub comm_d_new: &'a [u8],
}

/// The partitions of a sector update proof.
pub fn snap_deals_update(request: &SnapRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
    let proof = registry::update_proof(request.registered_proof)?;
    let sector_size = u64::from(proof.sector_size());
    registry::check_sector_size(request.sector_size, sector_size, proof)?;
    let partitions = by_shape!(sector_size, partitions(proof, request))?;
    Ok(FilecoinJob {
        circuit_id: CircuitKind::SnapDeals.circuit_id(sector_size)?,
        kind: "snap-deals-update",
        partitions,
    })
}

fn commitment<D: Domain>(what: &'static str, bytes: &[u8]) -> Result<D, FilecoinError> {
    let bytes = registry::bytes32(what, bytes)?;
    D::try_from_bytes(&bytes).map_err(|_| {
        FilecoinError::invalid(
            what,
            "not a BLS12-381 scalar (a commitment is below the modulus)",
        )
    })
}

fn partitions<Tree>(
    proof: RegisteredUpdateProof,
    request: &SnapRequest<'_>,
) -> Result<Vec<Partition>, FilecoinError>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let config = SectorUpdateConfig::from_porep_config(&proof.as_v1_config());
    let comm_r_old: TreeRDomain = commitment("comm_r_old", request.comm_r_old)?;
    let comm_r_new: TreeRDomain = commitment("comm_r_new", request.comm_r_new)?;
    let comm_d_new: DefaultPieceDomain = commitment("comm_d_new", request.comm_d_new)?;

    let partition_count = usize::from(config.update_partitions);
    if request.vanilla_proofs.len() != partition_count {
        return Err(FilecoinError::Count {
            what: format!("vanilla_proofs (partitions of a {proof:?} update)"),
            expected: partition_count.to_string(),
            actual: request.vanilla_proofs.len(),
        });
    }
    let vanilla_proofs = request
        .vanilla_proofs
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            bincode::deserialize::<PartitionProof<Tree>>(bytes).map_err(|e| {
                FilecoinError::malformed(
                    format!("vanilla_proofs[{i}] (a bincode PartitionProof)"),
                    bytes,
                    e,
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;

    let public_params = <EmptySectorUpdateCompound<Tree> as CompoundProof<
        EmptySectorUpdate<Tree>,
        _,
    >>::setup(&compound_proof::SetupParams {
        vanilla_params: SetupParams {
            sector_bytes: u64::from(config.sector_size),
        },
        partitions: Some(partition_count),
        priority: false,
    })
    .map_err(|e| FilecoinError::invalid("registered_proof", e))?;
    let vanilla_params = &public_params.vanilla_params;
    let public_inputs = PublicInputs {
        k: partition_count,
        comm_r_old,
        comm_d_new,
        comm_r_new,
        h: config.h,
    };

    let verified = EmptySectorUpdate::<Tree>::verify_all_partitions(
        vanilla_params,
        &public_inputs,
        &vanilla_proofs,
    )
    .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?;
    if !verified {
        return Err(FilecoinError::VanillaProof(
            "a partition's Merkle paths or encodings do not match comm_r_old, comm_r_new and \
             comm_d_new"
                .into(),
        ));
    }

    // The update circuit is not Clone: each synthesis builds it again from shared inputs.
    let shared = Arc::new((public_params.vanilla_params, public_inputs));
    vanilla_proofs
        .into_iter()
        .enumerate()
        .map(|(k, vanilla)| {
            let circuit_error = |e: anyhow::Error| FilecoinError::Circuit {
                kind: "SnapDeals",
                partition: k,
                reason: format!("{e:#}"),
            };
            let (vanilla_params, public_inputs) = &*shared;
            let inputs = <EmptySectorUpdateCompound<Tree> as CompoundProof<
                EmptySectorUpdate<Tree>,
                _,
            >>::generate_public_inputs(
                public_inputs, vanilla_params, Some(k)
            )
            .map_err(circuit_error)?;
            // Built once here so that a failure is an error now, not at synthesis.
            build_circuit::<Tree>(&shared, &vanilla, k).map_err(circuit_error)?;
            let shared = Arc::clone(&shared);
            let make = move || {
                build_circuit::<Tree>(&shared, &vanilla, k)
                    .expect("the same circuit was built from the same inputs before")
            };
            Ok(Partition::from_circuit_fn(make, inputs))
        })
        .collect()
}

fn build_circuit<Tree>(
    shared: &(PublicParams, PublicInputs),
    vanilla: &PartitionProof<Tree>,
    k: usize,
) -> anyhow::Result<EmptySectorUpdateCircuit<Tree>>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let (vanilla_params, public_inputs) = shared;
    <EmptySectorUpdateCompound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, _>>::circuit(
        public_inputs,
        (),
        vanilla,
        vanilla_params,
        Some(k),
    )
}
