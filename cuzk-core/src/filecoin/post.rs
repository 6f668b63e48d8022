//! WinningPoSt and one WindowPoSt partition: fallback PoSt circuits over vanilla proofs.
//!
//! The inputs are what node software passes to filecoin-proofs-api's
//! `generate_winning_post_with_vanilla` and `generate_single_window_post_with_vanilla`: one
//! bincode `FallbackPoStSectorProof` per sector, the 32-byte randomness, and the miner (whose
//! prover id enters the circuit). The vanilla proofs are arranged into the circuit's sector
//! slots as filecoin-proofs arranges them (the last sector repeated to fill a partition) and
//! verified against the challenges the randomness derives before anything is queued.

use std::collections::HashSet;

use blstrs::Scalar;
use filecoin_hashers::Hasher;
use filecoin_proofs::parameters::{window_post_public_params, winning_post_public_params};
use filecoin_proofs::types::{FallbackPoStSectorProof, PoStConfig, VanillaProof};
use filecoin_proofs::{
    as_safe_commitment, partition_vanilla_proofs, single_partition_vanilla_proofs, MerkleTreeTrait,
};
use filecoin_proofs_api::{PoStType, RegisteredPoStProof};
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_post::fallback::{
    self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector,
};

use super::error::FilecoinError;
use super::registry::{self, CircuitKind};
use super::witness::{fallback_post, path_from_options, PoStSector};
use super::FilecoinJob;
use crate::kind::Partition;

/// A WINNING_POST or WINDOW_POST_PARTITION request's fields.
#[derive(Clone, Copy, Debug)]
pub struct PoStRequest<'a> {
    pub registered_proof: u64,
    pub sector_size: u64,
    /// One bincode `FallbackPoStSectorProof` per sector.
    pub vanilla_proofs: &'a [Vec<u8>],
    pub miner_id: u64,
    /// The 32-byte challenge seed (a field element: Lotus clears its top two bits).
    pub randomness: &'a [u8],
    /// WindowPoSt only: which partition of the deadline these sectors are.
    pub partition_index: u32,
}

/// The one partition of a WinningPoSt.
pub fn winning_post(request: &PoStRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
    post(request, PoStType::Winning)
}

/// One partition of a WindowPoSt.
pub fn window_post_partition(request: &PoStRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
    post(request, PoStType::Window)
}

fn post(request: &PoStRequest<'_>, typ: PoStType) -> Result<FilecoinJob, FilecoinError> {
    let proof = registry::post_proof(request.registered_proof)?;
    if proof.typ() != typ {
        return Err(FilecoinError::Unsupported {
            proof: format!("{proof:?}"),
            reason: format!(
                "a {:?} PoSt proof type in a {typ:?} PoSt request",
                proof.typ()
            ),
        });
    }
    let sector_size = u64::from(proof.sector_size());
    registry::check_sector_size(request.sector_size, sector_size, proof)?;
    let kind = match typ {
        PoStType::Winning => CircuitKind::WinningPost,
        PoStType::Window => CircuitKind::WindowPost,
    };
    let partition = by_shape!(sector_size, partition(proof, request))?;
    Ok(FilecoinJob {
        circuit_id: kind.circuit_id(sector_size)?,
        kind: match typ {
            PoStType::Winning => "winning-post",
            PoStType::Window => "window-post",
        },
        partitions: vec![partition],
    })
}

fn partition<Tree: 'static + MerkleTreeTrait>(
    proof: RegisteredPoStProof,
    request: &PoStRequest<'_>,
) -> Result<Partition, FilecoinError> {
    let checked = checked::<Tree>(proof, request)?;
    let (circuit, inputs) = circuit_of::<Tree>(request, &checked)?;
    // The native witness reads the vanilla proofs when the engine asks for it (once checked
    // against the circuit's gadgets, `cuzk_core::native_witness`).
    Ok(
        Partition::from_circuit(circuit, inputs).with_native_witness(move || {
            Ok::<_, FilecoinError>(fallback_post(&native_sectors(&checked)?)?)
        }),
    )
}

/// A request's sectors decoded and their vanilla proofs verified, with the parameters and
/// public inputs of its partition.
struct Checked<Tree: MerkleTreeTrait> {
    public_params: fallback::PublicParams,
    public_inputs: fallback::PublicInputs<<Tree::Hasher as Hasher>::Domain>,
    vanilla: VanillaProof<Tree>,
}

fn checked<Tree: 'static + MerkleTreeTrait>(
    proof: RegisteredPoStProof,
    request: &PoStRequest<'_>,
) -> Result<Checked<Tree>, FilecoinError> {
    let config: PoStConfig = proof.as_v1_config();
    let randomness = registry::bytes32("randomness", request.randomness)?;
    let randomness: <Tree::Hasher as Hasher>::Domain = as_safe_commitment(&randomness, "randomness")
        .map_err(|_| {
            FilecoinError::invalid(
                "randomness",
                "not a BLS12-381 scalar (node software clears its top two bits: randomness[31] &= 0x3f)",
            )
        })?;
    let prover_id: <Tree::Hasher as Hasher>::Domain =
        as_safe_commitment(&registry::prover_id(request.miner_id), "prover_id")
            .map_err(|e| FilecoinError::invalid("miner_id", format!("{e:#}")))?;

    let sectors = decode_sector_proofs::<Tree>(request.vanilla_proofs, &config)?;
    let public_sectors: Vec<PublicSector<_>> = sectors
        .iter()
        .map(|s| PublicSector {
            id: s.sector_id,
            comm_r: s.comm_r,
        })
        .collect();

    let (public_params, public_inputs, vanilla) = match config.typ {
        PoStType::Winning => {
            let public_params = winning_post_public_params::<Tree>(&config)
                .map_err(|e| FilecoinError::invalid("registered_proof", e))?;
            // The circuit has a slot per challenge, each proving the one sector: its public
            // inputs are those of the sector repeated once per slot (as filecoin-proofs'
            // verify_winning_post lists it), so that slot i carries challenge i.
            let slots = public_sectors
                .iter()
                .cycle()
                .take(public_params.sector_count)
                .cloned()
                .collect();
            let public_inputs = fallback::PublicInputs {
                randomness,
                prover_id,
                sectors: slots,
                k: None,
            };
            // Arranges the sector's challenges into the circuit's slots and verifies them.
            let vanilla =
                partition_vanilla_proofs(&config, &public_params, &public_inputs, 1, &sectors)
                    .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?
                    .into_iter()
                    .next()
                    .ok_or_else(|| FilecoinError::VanillaProof("no partition proof".into()))?;
            (public_params, public_inputs, vanilla)
        }
        PoStType::Window => {
            let public_params = window_post_public_params::<Tree>(&config)
                .map_err(|e| FilecoinError::invalid("registered_proof", e))?;
            let public_inputs = fallback::PublicInputs {
                randomness,
                prover_id,
                sectors: public_sectors,
                k: Some(request.partition_index as usize),
            };
            let vanilla: VanillaProof<Tree> =
                single_partition_vanilla_proofs(&config, &public_params, &public_inputs, &sectors)
                    .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?;
            let verified = FallbackPoSt::<Tree>::verify(&public_params, &public_inputs, &vanilla)
                .map_err(|e| FilecoinError::VanillaProof(format!("{e:#}")))?;
            if !verified {
                return Err(FilecoinError::VanillaProof(
                    "a sector's inclusion proofs do not match its comm_r and the challenges of \
                     this randomness and partition"
                        .into(),
                ));
            }
            (public_params, public_inputs, vanilla)
        }
    };

    Ok(Checked {
        public_params,
        public_inputs,
        vanilla,
    })
}

/// As filecoin-proofs proves one partition: the circuit and its inputs for index 0 of the
/// sectors given.
fn circuit_of<Tree: 'static + MerkleTreeTrait>(
    request: &PoStRequest<'_>,
    checked: &Checked<Tree>,
) -> Result<(FallbackPoStCircuit<Tree>, Vec<Scalar>), FilecoinError> {
    let Checked {
        public_params,
        public_inputs,
        vanilla,
    } = checked;
    let circuit_error = |e: anyhow::Error| FilecoinError::Circuit {
        kind: "PoSt",
        partition: request.partition_index as usize,
        reason: format!("{e:#}"),
    };
    let circuit =
        <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::circuit(
            public_inputs,
            Default::default(),
            vanilla,
            public_params,
            Some(0),
        )
        .map_err(circuit_error)?;
    let inputs =
        <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::generate_public_inputs(
            public_inputs,
            public_params,
            Some(0),
        )
        .map_err(circuit_error)?;
    Ok((circuit, inputs))
}

/// The partition's sectors as the native witness reads them, chosen as the circuit chooses
/// them (`FallbackPoStCompound::circuit`: the sectors of partition 0, the last repeated
/// where the vanilla proof has more).
fn native_sectors<Tree: 'static + MerkleTreeTrait>(
    checked: &Checked<Tree>,
) -> Result<Vec<PoStSector>, FilecoinError> {
    let Checked {
        public_params,
        public_inputs,
        vanilla,
    } = checked;
    let sectors = public_inputs
        .sectors
        .chunks(public_params.sector_count.max(1))
        .next()
        .ok_or_else(|| FilecoinError::invalid("vanilla_proofs", "no sectors"))?;
    vanilla
        .sectors
        .iter()
        .enumerate()
        .map(|(i, proof)| {
            let public = &sectors[i.min(sectors.len() - 1)];
            let challenges = proof
                .leafs()
                .into_iter()
                .zip(proof.as_options())
                .map(|(leaf, path)| {
                    let levels = path_from_options(path).ok_or_else(|| {
                        FilecoinError::VanillaProof("an inclusion path has an empty slot".into())
                    })?;
                    Ok((leaf.into(), levels))
                })
                .collect::<Result<Vec<_>, FilecoinError>>()?;
            Ok(PoStSector {
                comm_r: public.comm_r.into(),
                comm_c: proof.comm_c.into(),
                comm_r_last: proof.comm_r_last.into(),
                challenges,
            })
        })
        .collect()
}

/// Decodes the sector proofs and checks their shape (filecoin-proofs indexes into them
/// without checking).
fn decode_sector_proofs<Tree: 'static + MerkleTreeTrait>(
    encoded: &[Vec<u8>],
    config: &PoStConfig,
) -> Result<Vec<FallbackPoStSectorProof<Tree>>, FilecoinError> {
    let (allowed, challenges) = match config.typ {
        PoStType::Winning => (
            config.sector_count..=config.sector_count,
            config.challenge_count,
        ),
        PoStType::Window => (1..=config.sector_count, config.challenge_count),
    };
    if !allowed.contains(&encoded.len()) {
        return Err(FilecoinError::Count {
            what: format!(
                "vanilla_proofs (sectors of a {:?} PoSt partition)",
                config.typ
            ),
            expected: if allowed.start() == allowed.end() {
                allowed.start().to_string()
            } else {
                format!("{} to {}", allowed.start(), allowed.end())
            },
            actual: encoded.len(),
        });
    }
    let mut seen = HashSet::new();
    encoded
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let proof: FallbackPoStSectorProof<Tree> =
                bincode::deserialize(bytes).map_err(|e| {
                    FilecoinError::malformed(
                        format!("vanilla_proofs[{i}] (a bincode FallbackPoStSectorProof)"),
                        bytes,
                        e,
                    )
                })?;
            if !seen.insert(u64::from(proof.sector_id)) {
                return Err(FilecoinError::invalid(
                    "vanilla_proofs",
                    format!("sector {} appears twice", u64::from(proof.sector_id)),
                ));
            }
            let slots = &proof.vanilla_proof.sectors;
            if slots.len() != 1 || slots[0].inclusion_proofs.len() != challenges {
                return Err(FilecoinError::Count {
                    what: format!(
                        "vanilla_proofs[{i}]: sector proofs x inclusion proofs (challenges)"
                    ),
                    expected: format!("1 x {challenges}"),
                    actual: slots.iter().map(|s| s.inclusion_proofs.len()).sum(),
                });
            }
            Ok(proof)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filecoin::synthetic::{self, SynthOptions};
    use crate::filecoin::witness::PoStWitnessError;
    use bellperson_lite::matrices::synthesize_witness;
    use ff::Field;

    /// The native witness of the request's partition against storage-proofs' circuit run in
    /// the witness-only constraint system: every input and every aux value.
    fn compare<Tree: 'static + MerkleTreeTrait>(
        proof: RegisteredPoStProof,
        request: &PoStRequest<'_>,
    ) -> Result<(), FilecoinError> {
        let checked = checked::<Tree>(proof, request)?;
        let (circuit, _) = circuit_of::<Tree>(request, &checked)?;
        let expected = synthesize_witness(circuit).expect("the gadgets' witness");
        let mut sectors = native_sectors(&checked)?;
        let native = fallback_post(&sectors).expect("the native witness");
        crate::filecoin::witness::assert_witnesses_equal(
            &native,
            &expected,
            &format!("{proof:?}: "),
        );
        // A sibling changed: the path no longer leads to comm_r_last, which is refused
        // rather than turned into a witness the circuit does not accept.
        sectors[0].challenges[0].1[0].siblings[0] += Scalar::ONE;
        assert_eq!(
            fallback_post(&sectors).unwrap_err(),
            PoStWitnessError::Root {
                sector: 0,
                challenge: 0
            }
        );
        Ok(())
    }

    fn check(kind: CircuitKind, sector_size: u64) {
        let made = synthetic::post_of_size(kind, sector_size, None, &SynthOptions::default())
            .expect("synthetic sectors");
        let request = PoStRequest {
            registered_proof: made.registered_proof_number(),
            sector_size,
            vanilla_proofs: &made.vanilla_proofs,
            miner_id: made.miner_id,
            randomness: &made.randomness,
            partition_index: 0,
        };
        let proof = registry::post_proof(request.registered_proof).unwrap();
        by_shape!(sector_size, compare(proof, &request)).unwrap();
    }

    /// The three tree shapes (8-0-0 at 2 KiB, 8-8-0 at 32 GiB, 8-8-2 at 64 GiB) through
    /// WinningPoSt, and a two-sector WindowPoSt partition.
    #[test]
    fn native_witness_equals_the_circuits() {
        check(CircuitKind::WindowPost, 2048);
        check(CircuitKind::WinningPost, 2048);
        check(CircuitKind::WinningPost, 32 << 30);
        check(CircuitKind::WinningPost, 64 << 30);
    }
}
