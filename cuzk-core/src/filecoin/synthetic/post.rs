//! Synthetic PoSt vanilla proofs: WinningPoSt and WindowPoSt sectors that were never sealed.
//!
//! A fallback PoSt proves, per sector, that its challenged leaves are in tree_r_last and that
//! comm_r = H(comm_c, comm_r_last). Each synthetic sector is a sparse tree_r_last in the
//! sector's shape with random leaves at the nodes the randomness challenges (derived by
//! filecoin-proofs-api's own function, as node software derives them) and one random default
//! leaf elsewhere, a random comm_c, and the comm_r they make.

use std::collections::BTreeMap;

use filecoin_hashers::Hasher;
use filecoin_proofs::types::{FallbackPoStSectorProof, PoStConfig};
use filecoin_proofs::MerkleTreeTrait;
use filecoin_proofs_api::post::generate_fallback_sector_challenges;
use filecoin_proofs_api::{PoStType, RegisteredPoStProof, SectorId};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;
use storage_proofs_post::fallback::{Proof, SectorProof};

use super::tree::{hash2, NodeValues, SparseTree};
use super::{commitment, random_domain, synthetic_error, SynthOptions};
use crate::filecoin::registry::{current_post_proof, post_proof_number, prover_id};
use crate::filecoin::CircuitKind;
use crate::filecoin::FilecoinError;

/// The vanilla proofs of a synthetic PoSt, with what the request must name.
pub struct SyntheticPoSt {
    pub registered_proof: RegisteredPoStProof,
    pub miner_id: u64,
    /// The challenge seed (a field element, as node software passes it).
    pub randomness: [u8; 32],
    /// One bincode `FallbackPoStSectorProof` per sector, in sector order.
    pub vanilla_proofs: Vec<Vec<u8>>,
    /// Each sector's number and comm_r, in the same order: what a verifier of the PoSt is
    /// given.
    pub sectors: Vec<(u64, [u8; 32])>,
}

impl SyntheticPoSt {
    /// The registered proof's number on the wire.
    pub fn registered_proof_number(&self) -> u64 {
        post_proof_number(self.registered_proof)
    }
}

/// [`post`] for the registered proof node software uses for `kind` (WinningPost or
/// WindowPost) at `sector_size`.
pub fn post_of_size(
    kind: CircuitKind,
    sector_size: u64,
    sectors: Option<usize>,
    options: &SynthOptions,
) -> Result<SyntheticPoSt, FilecoinError> {
    if !matches!(kind, CircuitKind::WinningPost | CircuitKind::WindowPost) {
        return Err(synthetic_error(format!("{kind:?} is not a PoSt")));
    }
    post(current_post_proof(kind, sector_size)?, sectors, options)
}

/// Makes the vanilla proofs of `sectors` synthetic sectors (numbered from
/// `options.sector_number`) for a PoSt of type `proof`. `None`: one sector for WinningPoSt,
/// a full partition (2349 sectors at 32 GiB) for WindowPoSt.
pub fn post(
    proof: RegisteredPoStProof,
    sectors: Option<usize>,
    options: &SynthOptions,
) -> Result<SyntheticPoSt, FilecoinError> {
    let config: PoStConfig = proof.as_v1_config();
    let sectors = match (proof.typ(), sectors) {
        (_, Some(0)) => return Err(synthetic_error("a PoSt of no sectors")),
        (PoStType::Winning, Some(n)) if n > 1 => {
            return Err(synthetic_error(format!(
                "a WinningPoSt proves one sector, not {n}"
            )))
        }
        (PoStType::Window, Some(n)) if n > config.sector_count => {
            return Err(synthetic_error(format!(
                "a WindowPoSt partition of {proof:?} holds at most {} sectors, not {n}",
                config.sector_count
            )))
        }
        (PoStType::Winning, _) => 1,
        (PoStType::Window, n) => n.unwrap_or(config.sector_count),
    };
    let sector_size = u64::from(proof.sector_size());
    by_shape!(sector_size, post_of_shape(proof, sectors, options))
}

fn post_of_shape<Tree: 'static + MerkleTreeTrait>(
    proof: RegisteredPoStProof,
    sectors: usize,
    options: &SynthOptions,
) -> Result<SyntheticPoSt, FilecoinError> {
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut randomness: [u8; 32] = rand::Rng::gen(&mut rng);
    randomness[31] &= 0x3f;
    let first = options.sector_number;
    let ids: Vec<SectorId> = (0..sectors as u64)
        .map(|i| {
            first
                .checked_add(i)
                .map(SectorId::from)
                .ok_or_else(|| synthetic_error("sector numbers past 2^64"))
        })
        .collect::<Result<_, _>>()?;
    let challenges =
        generate_fallback_sector_challenges(proof, &randomness, &ids, prover_id(options.miner_id))
            .map_err(|e| synthetic_error(format!("PoSt challenges: {e:#}")))?;
    let leaf_count = u64::from(proof.sector_size()) / 32;
    // Each sector's random values come from its own generator, seeded from the first, so
    // sectors can be made in parallel and still be the same for the same seed.
    let sector_seeds: Vec<u64> = ids.iter().map(|_| rand::Rng::gen(&mut rng)).collect();
    let vanilla_proofs = ids
        .par_iter()
        .zip(sector_seeds)
        .map(|(id, seed)| {
            let leaves = challenges.get(id).ok_or_else(|| {
                synthetic_error(format!(
                    "no challenges derived for sector {}",
                    u64::from(*id)
                ))
            })?;
            sector_proof::<Tree>(*id, leaves, leaf_count, seed)
        })
        .collect::<Result<Vec<_>, FilecoinError>>()?;
    let (vanilla_proofs, comm_rs): (Vec<_>, Vec<_>) = vanilla_proofs.into_iter().unzip();
    Ok(SyntheticPoSt {
        registered_proof: proof,
        miner_id: options.miner_id,
        randomness,
        vanilla_proofs,
        sectors: ids.iter().map(|&id| u64::from(id)).zip(comm_rs).collect(),
    })
}

/// One sector's vanilla proof (its challenged leaves opened in a sparse tree_r_last), and its
/// comm_r.
fn sector_proof<Tree: 'static + MerkleTreeTrait>(
    sector_id: SectorId,
    challenges: &[u64],
    leaf_count: u64,
    seed: u64,
) -> Result<(Vec<u8>, [u8; 32]), FilecoinError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let leaves: BTreeMap<u64, _> = challenges
        .iter()
        .map(|&leaf| (leaf, random_domain(&mut rng)))
        .collect();
    let tree =
        SparseTree::<Tree::Hasher>::for_shape::<Tree>(leaf_count, random_domain(&mut rng), leaves)?;
    let comm_c: <Tree::Hasher as Hasher>::Domain = random_domain(&mut rng);
    let comm_r_last = tree.root();
    let inclusion_proofs = challenges
        .iter()
        .map(|&leaf| tree.proof::<Tree>(leaf))
        .collect::<Result<_, _>>()?;
    let proof = FallbackPoStSectorProof::<Tree> {
        sector_id,
        comm_r: hash2::<Tree::Hasher>(&comm_c, &comm_r_last),
        vanilla_proof: Proof {
            sectors: vec![SectorProof {
                inclusion_proofs,
                comm_c,
                comm_r_last,
            }],
        },
    };
    let comm_r = commitment(&proof.comm_r);
    let bytes = bincode::serialize(&proof).map_err(|e| {
        synthetic_error(format!(
            "encoding sector {}'s vanilla proof: {e}",
            u64::from(sector_id)
        ))
    })?;
    Ok((bytes, comm_r))
}
