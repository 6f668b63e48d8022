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

use bellperson_lite::matrices::Witness;
use blstrs::Scalar;
use storage_proofs_update::constants::hs;
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof,
    PublicInputs, PublicParams, SetupParams,
};

use super::error::FilecoinError;
use super::registry::{self, CircuitKind};
use super::witness::{empty_sector_update, SnapChallenge, SnapPartition, SnapShape};
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

/// The parameters and public inputs every partition shares, and each partition's vanilla
/// proof: decoded and verified.
type Checked<Tree> = (Arc<(PublicParams, PublicInputs)>, Vec<PartitionProof<Tree>>);

fn partitions<Tree>(
    proof: RegisteredUpdateProof,
    request: &SnapRequest<'_>,
) -> Result<Vec<Partition>, FilecoinError>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let (shared, vanilla_proofs) = checked::<Tree>(proof, request)?;
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
            let vanilla = Arc::new(vanilla);
            let (for_circuit, for_native) = (Arc::clone(&shared), Arc::clone(&shared));
            let native_vanilla = Arc::clone(&vanilla);
            let make = move || {
                build_circuit::<Tree>(&for_circuit, &vanilla, k)
                    .expect("the same circuit was built from the same inputs before")
            };
            // The native witness reads the circuit's inputs when the engine asks for it (once
            // checked against the circuit's gadgets, `cuzk_core::native_witness`).
            let native = move || -> Result<Witness, FilecoinError> {
                let circuit = build_circuit::<Tree>(&for_native, &native_vanilla, k)
                    .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?;
                Ok(empty_sector_update(&native_partition(&circuit)?)?)
            };
            Ok(Partition::from_circuit_fn(make, inputs).with_native_witness(native))
        })
        .collect()
}

fn checked<Tree>(
    proof: RegisteredUpdateProof,
    request: &SnapRequest<'_>,
) -> Result<Checked<Tree>, FilecoinError>
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
    Ok((
        Arc::new((public_params.vanilla_params, public_inputs)),
        vanilla_proofs,
    ))
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

/// A partition as the native witness reads it: the circuit's own inputs (all of which its
/// constructor filled from the vanilla proof).
fn native_partition<Tree>(
    circuit: &EmptySectorUpdateCircuit<Tree>,
) -> Result<SnapPartition, FilecoinError>
where
    Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>,
{
    let missing = |what: &str| FilecoinError::VanillaProof(format!("the circuit has no {what}"));
    let value = |v: Option<Scalar>, what: &str| v.ok_or_else(|| missing(what));
    let levels = |path: &[Vec<Option<Scalar>>], what: &str| {
        path.iter()
            .map(|siblings| siblings.iter().copied().collect::<Option<Vec<Scalar>>>())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| missing(what))
    };
    let params = &circuit.pub_params;
    let inputs = &circuit.pub_inputs;
    let private = &circuit.priv_inputs;
    let challenges = private
        .challenge_proofs
        .iter()
        .map(|c| {
            Ok(SnapChallenge {
                leaf_r_old: value(c.leaf_r_old, "leaf_r_old")?,
                path_r_old: levels(&c.path_r_old, "path_r_old")?,
                leaf_d_new: value(c.leaf_d_new, "leaf_d_new")?,
                leaf_r_new: value(c.leaf_r_new, "leaf_r_new")?,
                path_d_new: levels(&c.path_d_new, "path_d_new")?,
                path_r_new: levels(&c.path_r_new, "path_r_new")?,
            })
        })
        .collect::<Result<Vec<_>, FilecoinError>>()?;
    Ok(SnapPartition {
        shape: SnapShape {
            challenge_count: params.challenge_count,
            challenge_bit_len: params.challenge_bit_len,
            partition_bit_len: params.partition_bit_len,
            apex_leaf_bit_len: params.apex_leaf_bit_len,
            hs: hs(params.sector_nodes).to_vec(),
        },
        k_and_h_select: value(inputs.k_and_h_select, "k_and_h_select")?,
        comm_r_old: value(inputs.comm_r_old, "comm_r_old")?,
        comm_d_new: value(inputs.comm_d_new, "comm_d_new")?,
        comm_r_new: value(inputs.comm_r_new, "comm_r_new")?,
        comm_c: value(private.comm_c, "comm_c")?,
        root_r_old: value(private.root_r_old, "root_r_old")?,
        root_r_new: value(private.root_r_new, "root_r_new")?,
        apex_leafs: private
            .apex_leafs
            .iter()
            .copied()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| missing("apex leaves"))?,
        challenges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filecoin::synthetic::{self, SynthOptions};

    fn job(sector_size: u64) -> FilecoinJob {
        let made = synthetic::snap_of_size(sector_size, &SynthOptions::default())
            .expect("a synthetic update");
        snap_deals_update(&SnapRequest {
            registered_proof: made.registered_proof_number(),
            sector_size,
            vanilla_proofs: &made.vanilla_proofs,
            comm_r_old: &made.comm_r_old,
            comm_r_new: &made.comm_r_new,
            comm_d_new: &made.comm_d_new,
        })
        .expect("the synthetic update is accepted")
    }

    /// The first partition: the native witness against storage-proofs-update's circuit run in
    /// the witness-only constraint system, every input and aux value.
    fn native_equals_gadgets(sector_size: u64) {
        let job = job(sector_size);
        let partition = &job.partitions[0];
        crate::filecoin::witness::assert_native_equals_gadgets(partition);
    }

    #[test]
    fn native_witness_equals_the_circuit_at_2k() {
        native_equals_gadgets(2048);
    }

    /// 8-8-0 trees, h among 7 to 12, 16 partitions: the production shape.
    #[test]
    fn native_witness_equals_the_circuit_at_32g() {
        native_equals_gadgets(32 << 30);
    }

    /// Inputs that do not check out are typed errors, not witnesses the circuit would refuse.
    #[test]
    fn a_tampered_partition_is_refused() {
        use crate::filecoin::witness::SnapWitnessError;
        use ff::Field;

        use filecoin_proofs::SectorShape2KiB;

        let made = synthetic::snap_of_size(2048, &SynthOptions::default()).unwrap();
        let request = SnapRequest {
            registered_proof: made.registered_proof_number(),
            sector_size: 2048,
            vanilla_proofs: &made.vanilla_proofs,
            comm_r_old: &made.comm_r_old,
            comm_r_new: &made.comm_r_new,
            comm_d_new: &made.comm_d_new,
        };
        let proof = registry::update_proof(request.registered_proof).unwrap();
        let (shared, vanilla) = checked::<SectorShape2KiB>(proof, &request).unwrap();
        let circuit = build_circuit(&shared, &vanilla[0], 0).unwrap();
        let partition = native_partition(&circuit).unwrap();
        assert!(empty_sector_update(&partition).is_ok());
        let refused = |change: &dyn Fn(&mut SnapPartition)| {
            let mut p = partition.clone();
            change(&mut p);
            empty_sector_update(&p).unwrap_err()
        };
        assert_eq!(
            refused(&|p| p.comm_c += Scalar::ONE),
            SnapWitnessError::CommR { which: "old" }
        );
        assert_eq!(
            refused(&|p| p.apex_leafs[0] += Scalar::ONE),
            SnapWitnessError::Apex
        );
        assert_eq!(
            refused(&|p| p.challenges[1].leaf_d_new += Scalar::ONE),
            SnapWitnessError::Encoding { challenge: 1 }
        );
        assert_eq!(
            refused(&|p| p.challenges[0].path_r_old[0][0] += Scalar::ONE),
            SnapWitnessError::Root {
                challenge: 0,
                tree: "tree_r_old"
            }
        );
        assert!(matches!(
            refused(&|p| {
                p.apex_leafs.pop();
            }),
            SnapWitnessError::Shape(_)
        ));
        // No bits below the partition's: refused, not a division by zero.
        assert!(matches!(
            refused(&|p| {
                p.shape.partition_bit_len = p.shape.challenge_bit_len;
                p.shape.apex_leaf_bit_len = 0;
                p.apex_leafs.truncate(1);
            }),
            SnapWitnessError::Shape(_)
        ));
    }
}
