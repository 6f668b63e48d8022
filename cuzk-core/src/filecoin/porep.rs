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
use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_porep::stacked::{
    self, generate_replica_id, ColumnProof, StackedCompound, StackedDrg,
};

use super::envelope;
use super::error::FilecoinError;
use super::registry::{self, CircuitKind};
use super::witness::{
    path_from_options, stacked as stacked_witness, ColumnOpening, PoRepChallenge, PoRepPartition,
};
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
            // The native witness reads the vanilla proofs when the engine asks for it (once
            // checked against the circuit's gadgets, `cuzk_core::native_witness`).
            let (public_inputs, vanilla) = (public_inputs.clone(), vanilla.clone());
            Ok(
                Partition::from_circuit(circuit, inputs).with_native_witness(move || {
                    Ok::<_, FilecoinError>(stacked_witness(&native_partition::<Tree>(
                        &public_inputs,
                        &vanilla,
                    )?)?)
                }),
            )
        })
        .collect()
}

/// A partition's challenges as the native witness reads them, from its vanilla proofs as
/// `StackedCompound::circuit` turns them into the circuit's (comm_r_last and comm_c from the
/// first challenge, the challenged node from its first labeling proof).
fn native_partition<Tree: 'static + MerkleTreeTrait>(
    public_inputs: &stacked::PublicInputs<<Tree::Hasher as Hasher>::Domain, DefaultPieceDomain>,
    vanilla: &[VanillaSealProof<Tree>],
) -> Result<PoRepPartition, FilecoinError> {
    let first = vanilla
        .first()
        .ok_or_else(|| FilecoinError::VanillaProof("a partition without challenges".into()))?;
    let tau = public_inputs
        .tau
        .as_ref()
        .ok_or_else(|| FilecoinError::VanillaProof("no comm_d and comm_r".into()))?;
    let empty = || FilecoinError::VanillaProof("an inclusion path has an empty slot".into());
    let challenges = vanilla
        .iter()
        .map(|proof| {
            // Columns and labeling proofs keep their fields to their crate; their serde form
            // (the commit-phase-1 output's) has them.
            let columns = &proof.replica_column_proofs;
            Ok(PoRepChallenge {
                node: labeling_node(proof)?,
                data_leaf: proof.comm_d_proofs.leaf().into(),
                data_path: path_from_options(proof.comm_d_proofs.as_options()).ok_or_else(empty)?,
                drg_parents: columns
                    .drg_parents
                    .iter()
                    .map(column_opening::<Tree>)
                    .collect::<Result<_, _>>()?,
                exp_parents: columns
                    .exp_parents
                    .iter()
                    .map(column_opening::<Tree>)
                    .collect::<Result<_, _>>()?,
                replica_path: path_from_options(proof.comm_r_last_proof.as_options())
                    .ok_or_else(empty)?,
                column_path: column_opening::<Tree>(&columns.c_x)?.path,
            })
        })
        .collect::<Result<Vec<_>, FilecoinError>>()?;
    Ok(PoRepPartition {
        replica_id: public_inputs.replica_id.into(),
        comm_d: tau.comm_d.into(),
        comm_r: tau.comm_r.into(),
        comm_r_last: first.comm_r_last().into(),
        comm_c: first.comm_c().into(),
        challenges,
    })
}

/// The Merkle proof type of a sector's trees (tree_c, tree_r_last).
type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// A column's labels and the path of its hash in tree_c.
fn column_opening<Tree: 'static + MerkleTreeTrait>(
    column: &ColumnProof<TreeProof<Tree>>,
) -> Result<ColumnOpening, FilecoinError> {
    let bad = |e: serde_json::Error| FilecoinError::VanillaProof(format!("a column proof: {e}"));
    let value = serde_json::to_value(column).map_err(bad)?;
    let rows: Vec<<Tree::Hasher as Hasher>::Domain> =
        serde_json::from_value(value["column"]["rows"].clone()).map_err(bad)?;
    let proof: TreeProof<Tree> =
        serde_json::from_value(value["inclusion_proof"].clone()).map_err(bad)?;
    Ok(ColumnOpening {
        labels: rows.into_iter().map(Into::into).collect(),
        path: path_from_options(proof.as_options()).ok_or_else(|| {
            FilecoinError::VanillaProof("a column's inclusion path has an empty slot".into())
        })?,
    })
}

/// The challenged node, as the circuit takes it: from the first labeling proof.
fn labeling_node<Tree: 'static + MerkleTreeTrait>(
    proof: &VanillaSealProof<Tree>,
) -> Result<u64, FilecoinError> {
    let first = proof
        .labeling_proofs
        .first()
        .ok_or_else(|| FilecoinError::VanillaProof("a challenge without labeling proofs".into()))?;
    let value = serde_json::to_value(first)
        .map_err(|e| FilecoinError::VanillaProof(format!("a labeling proof: {e}")))?;
    value["node"]
        .as_u64()
        .ok_or_else(|| FilecoinError::VanillaProof("a labeling proof without its node".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filecoin::synthetic::{self, SynthOptions};
    use blstrs::Scalar;

    /// The first partition of a synthetic sector: the native witness against storage-proofs'
    /// StackedCircuit run in the witness-only constraint system, every input and aux value.
    fn native_equals_gadgets(sector_size: u64) {
        let made = synthetic::porep_of_size(sector_size, &SynthOptions::default())
            .expect("a synthetic sector");
        let c1 = made.commit_phase1_json().unwrap();
        let job = porep_c2(&PoRepRequest {
            registered_proof: made.registered_proof_number(),
            sector_size,
            c1_output: &c1,
            miner_id: made.miner_id,
            sector_number: made.sector_number,
        })
        .expect("the synthetic sector is accepted");
        let partition = &job.partitions[0];
        crate::filecoin::witness::assert_native_equals_gadgets(partition);
    }

    #[test]
    fn native_witness_equals_the_circuits_at_2k() {
        native_equals_gadgets(2048);
    }

    /// Openings that do not check out are typed errors, not witnesses the circuit would
    /// refuse: a DRG parent's label, the data leaf, comm_r, the parent count, the layers.
    #[test]
    fn a_tampered_opening_is_refused() {
        use crate::filecoin::witness::PoRepWitnessError;
        use ff::Field;
        use filecoin_proofs::SectorShape2KiB;

        let made = synthetic::porep_of_size(2048, &SynthOptions::default()).unwrap();
        let c1: SealCommitPhase1Output =
            serde_json::from_slice(&made.commit_phase1_json().unwrap()).unwrap();
        let vanilla: Vec<Vec<VanillaSealProof<SectorShape2KiB>>> =
            c1.vanilla_proofs.try_into().unwrap();
        let public_inputs = stacked::PublicInputs {
            replica_id: Domain::try_from_bytes(c1.replica_id.as_ref()).unwrap(),
            tau: Some(stacked::Tau {
                comm_d: DefaultPieceDomain::try_from_bytes(&c1.comm_d).unwrap(),
                comm_r: as_safe_commitment(&c1.comm_r, "comm_r").unwrap(),
            }),
            k: None,
            seed: Some(c1.seed),
        };
        let partition = native_partition::<SectorShape2KiB>(&public_inputs, &vanilla[0]).unwrap();
        assert!(stacked_witness(&partition).is_ok());

        let refused = |change: &dyn Fn(&mut PoRepPartition)| {
            let mut p = partition.clone();
            change(&mut p);
            stacked_witness(&p).unwrap_err()
        };
        let root = |tree| PoRepWitnessError::Root { challenge: 0, tree };
        assert_eq!(
            refused(&|p| p.challenges[0].drg_parents[0].labels[0] += Scalar::ONE),
            root("tree_c")
        );
        assert_eq!(
            refused(&|p| p.challenges[0].data_leaf += Scalar::ONE),
            root("tree_d")
        );
        assert_eq!(
            refused(&|p| p.comm_r += Scalar::ONE),
            PoRepWitnessError::CommR
        );
        assert_eq!(
            refused(&|p| {
                p.challenges[1].exp_parents.pop();
            }),
            PoRepWitnessError::Parents {
                challenge: 1,
                drg: 6,
                exp: 7
            }
        );
        assert_eq!(
            refused(&|p| p.challenges[0].exp_parents[3].labels.push(Scalar::ONE)),
            PoRepWitnessError::Layers {
                challenge: 0,
                labels: 3
            }
        );
    }

    /// Eleven layers, columns of eleven labels, 8-8-0 trees: the production shape.
    #[test]
    fn native_witness_equals_the_circuits_at_32g() {
        native_equals_gadgets(32 << 30);
    }
}
