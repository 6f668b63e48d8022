//! Synthetic SnapDeals (empty sector update) vanilla proofs: the partition proofs of an
//! update that was never encoded, valid for storage-proofs-update's verifier and circuit.
//!
//! What an update partition proves, per challenged node `c`: its old replica leaf in
//! tree_r_old, its new data leaf in tree_d_new (binary SHA-256, root comm_d_new), its new
//! replica leaf in tree_r_new, and that `new = old + data * rho(c >> (log2(nodes) - h))`;
//! plus comm_r_old = H(comm_c, root_r_old), comm_r_new = H(comm_c, root_r_new), and the
//! partition's apex leaves (a row of tree_d_new) agreeing with the data paths.
//!
//! # Why the leaves are uniform per rho-group
//!
//! The commitments depend on each other in one direction only, and it forbids choosing any
//! leaf after the challenges are known:
//!
//! - rho = H(phi, high) with phi = H(comm_d_new, comm_r_old): the data and the old replica
//!   (all of tree_d_new and tree_r_old) are fixed before any rho is known;
//! - every new replica leaf is then fixed by its old leaf, data leaf and rho;
//! - comm_r_new hashes the root of the whole new replica, and the challenges derive from
//!   comm_r_new and the partition index.
//!
//! So no leaf can be picked for being challenged (PoRep could, because its challenges come
//! from a seed independent of the replica); every leaf of all three trees is fixed before the
//! challenges, and a 2^30-leaf tree is only affordable if its leaves follow a pattern whose
//! subtree roots repeat. The pattern used here follows rho: the sector's nodes split into
//! 2^h groups (h = 10 at production sizes, 1 at 2 KiB) of consecutive nodes sharing the
//! `h` high bits of their index and so one rho. Each group gets one random data value and
//! one random old replica value, so its new replica value `old + data * rho(group)` is one
//! value as well, and all three trees are constant on aligned blocks of 2^(log2(nodes) - h)
//! leaves ([`BlockTree`]). A node whose subtree lies inside one group hashes the same as
//! every other node at its height in that group, so those levels cost one hash per group;
//! the few levels above (from 4096 nodes at 32 GiB) are computed in full. A 32 GiB update
//! costs about 36,000 hashes (under a second), and the challenged leaves differ from group to
//! group (a partition's 86 challenges fall in up to 64 groups).
//!
//! # Steps
//!
//! 1. Random data and old replica values per group, and a random comm_c; tree_d_new and
//!    tree_r_old (sector shape, e.g. 8-8-0 at 32 GiB); comm_d_new and comm_r_old.
//! 2. phi and each group's rho (storage-proofs-update's `phi` and `rho`), the new replica
//!    values, tree_r_new, and comm_r_new.
//! 3. Each partition's challenges (storage-proofs-update's `Challenges`), apex leaves and
//!    Merkle paths, as `EmptySectorUpdate::prove_inner` assembles them, bincode-encoded as
//!    filecoin-proofs-api's `generate_partition_proofs` returns them.
//!
//! An update proves nothing about the miner or the sector number, so only
//! `SynthOptions::seed` matters here.

use blstrs::Scalar as Fr;
use filecoin_hashers::Hasher;
use filecoin_proofs::types::SectorUpdateConfig;
use filecoin_proofs::MerkleTreeTrait;
use filecoin_proofs_api::RegisteredUpdateProof;
use generic_array::typenum::{U0, U2};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;
use storage_proofs_update::constants::{TreeDDomain, TreeDHasher, TreeRDomain, TreeRHasher};
use storage_proofs_update::{phi, rho, ChallengeProof, Challenges, PartitionProof, PublicParams};

use super::tree::{hash2, hash_children, shape_arities, shape_of, NodeValues};
use super::{commitment, random_domain, synthetic_error, SynthOptions};
use crate::filecoin::registry::{current_update_proof, update_proof_number};
use crate::filecoin::FilecoinError;

/// The vanilla proofs of a synthetic sector update, with the commitments a
/// SNAP_DEALS_UPDATE request names.
pub struct SyntheticSnap {
    pub registered_proof: RegisteredUpdateProof,
    /// One bincode `storage_proofs_update::PartitionProof<Tree>` per partition, in partition
    /// order: what filecoin-proofs-api's `generate_partition_proofs` returns.
    pub vanilla_proofs: Vec<Vec<u8>>,
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
}

impl SyntheticSnap {
    /// The registered proof's number on the wire.
    pub fn registered_proof_number(&self) -> u64 {
        update_proof_number(self.registered_proof)
    }
}

/// [`snap`] for the registered update proof of `sector_size`.
pub fn snap_of_size(
    sector_size: u64,
    options: &SynthOptions,
) -> Result<SyntheticSnap, FilecoinError> {
    snap(current_update_proof(sector_size)?, options)
}

/// Makes the vanilla partition proofs of a synthetic sector update for `proof`.
pub fn snap(
    proof: RegisteredUpdateProof,
    options: &SynthOptions,
) -> Result<SyntheticSnap, FilecoinError> {
    let sector_size = u64::from(proof.sector_size());
    by_shape!(sector_size, snap_of_shape(proof, options))
}

fn snap_of_shape<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    proof: RegisteredUpdateProof,
    options: &SynthOptions,
) -> Result<SyntheticSnap, FilecoinError> {
    let config = SectorUpdateConfig::from_porep_config(&proof.as_v1_config());
    let params = PublicParams::from_sector_size(u64::from(config.sector_size));
    let nodes = params.sector_nodes as u64;
    let h = config.h;
    if h > params.challenge_bit_len {
        return Err(synthetic_error(format!(
            "h = {h} high bits of a {}-bit node index",
            params.challenge_bit_len
        )));
    }
    let groups = 1usize << h;
    let group_nodes = nodes >> h;
    let mut rng = StdRng::seed_from_u64(options.seed);

    // 1. Data and the old replica.
    let data: Vec<TreeDDomain> = (0..groups).map(|_| random_domain(&mut rng)).collect();
    let old: Vec<TreeRDomain> = (0..groups).map(|_| random_domain(&mut rng)).collect();
    let comm_c: TreeRDomain = random_domain(&mut rng);
    let tree_d_new =
        BlockTree::<TreeDHasher>::new(shape_arities(nodes, 2, 0, 0)?, group_nodes, data.clone())?;
    let tree_r_old = BlockTree::<TreeRHasher>::for_shape::<Tree>(nodes, group_nodes, old.clone())?;
    let comm_d_new = tree_d_new.root();
    let comm_r_old = hash2::<TreeRHasher>(&comm_c, &tree_r_old.root());

    // 2. The encoding: group `high` holds the nodes whose `h` high bits are `high`.
    let phi = phi(&comm_d_new, &comm_r_old);
    let new: Vec<TreeRDomain> = (0..groups)
        .into_par_iter()
        .map(|high| {
            let rho = rho(&phi, high as u32);
            let old: Fr = old[high].into();
            let data: Fr = data[high].into();
            (old + data * rho).into()
        })
        .collect();
    let tree_r_new = BlockTree::<TreeRHasher>::for_shape::<Tree>(nodes, group_nodes, new)?;
    let comm_r_new = hash2::<TreeRHasher>(&comm_c, &tree_r_new.root());

    // 3. The partition proofs.
    let trees = Trees {
        tree_r_old: &tree_r_old,
        tree_d_new: &tree_d_new,
        tree_r_new: &tree_r_new,
    };
    let vanilla_proofs = (0..params.partition_count)
        .into_par_iter()
        .map(|k| {
            let proof = partition_proof::<Tree>(&params, &trees, comm_c, comm_r_new, k)?;
            bincode::serialize(&proof).map_err(|e| {
                synthetic_error(format!("encoding partition {k}'s vanilla proof: {e}"))
            })
        })
        .collect::<Result<_, FilecoinError>>()?;

    Ok(SyntheticSnap {
        registered_proof: proof,
        vanilla_proofs,
        comm_r_old: commitment(&comm_r_old),
        comm_r_new: commitment(&comm_r_new),
        comm_d_new: commitment(&comm_d_new),
    })
}

struct Trees<'a> {
    tree_r_old: &'a BlockTree<TreeRHasher>,
    tree_d_new: &'a BlockTree<TreeDHasher>,
    tree_r_new: &'a BlockTree<TreeRHasher>,
}

/// Partition `k`'s proof: its apex leaves and the three paths of each of its challenges.
fn partition_proof<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    params: &PublicParams,
    trees: &Trees<'_>,
    comm_c: TreeRDomain,
    comm_r_new: TreeRDomain,
    k: usize,
) -> Result<PartitionProof<Tree>, FilecoinError> {
    if k >= params.partition_count {
        return Err(synthetic_error(format!(
            "partition {k} of {}",
            params.partition_count
        )));
    }
    // The apex leaves are the row of tree_d_new that has `apex_leaf_count` nodes above each
    // partition's share of the sector; partition k's are the k-th run of them.
    let apex_height = params
        .challenge_bit_len
        .checked_sub(params.partition_bit_len + params.apex_leaf_bit_len)
        .ok_or_else(|| synthetic_error("an apex tree taller than tree_d"))?;
    let apex_count = params.apex_leaf_count as u64;
    let apex_leafs = (k as u64 * apex_count..(k as u64 + 1) * apex_count)
        .map(|i| trees.tree_d_new.node(apex_height, i))
        .collect();
    let challenge_proofs = Challenges::new(params.sector_nodes, comm_r_new, k)
        .map(|c| {
            let c = u64::from(c);
            Ok(ChallengeProof {
                proof_r_old: trees.tree_r_old.proof::<Tree>(c)?,
                proof_d_new: trees.tree_d_new.proof_in::<U2, U0, U0>(c)?,
                proof_r_new: trees.tree_r_new.proof::<Tree>(c)?,
            })
        })
        .collect::<Result<_, FilecoinError>>()?;
    Ok(PartitionProof {
        comm_c,
        apex_leafs,
        challenge_proofs,
    })
}

/// Above this many nodes, a level of a [`BlockTree`] is not stored in full: blocks so small
/// (or so misaligned with the arities) would cost as much as a real tree.
const MAX_FULL_LEVEL: u64 = 1 << 22;

/// A Merkle tree whose leaves are constant on aligned blocks of `block_leaves` leaves.
///
/// Up to the highest level whose nodes each cover a whole number of leaves dividing the
/// block (the `uniform` height), every node inside block `b` at a given height has the same
/// value, stored once per block. The levels above are stored in full.
struct BlockTree<H: Hasher> {
    /// Arity of each level, from the leaves up.
    arities: Vec<usize>,
    /// The leaves under one node, per height (`spans[0]` = 1).
    spans: Vec<u64>,
    block_leaves: u64,
    /// Heights `0..=uniform`: the value of the nodes at that height inside each block.
    per_block: Vec<Vec<H::Domain>>,
    /// Heights above `uniform`, lowest first: every node.
    above: Vec<Vec<H::Domain>>,
}

impl<H: Hasher> BlockTree<H> {
    /// A tree of `leaf_count` leaves in the shape of `Tree`, the leaves of block `b` (leaves
    /// `b * block_leaves..(b + 1) * block_leaves`) all `block_values[b]`.
    fn for_shape<Tree: MerkleTreeTrait<Hasher = H>>(
        leaf_count: u64,
        block_leaves: u64,
        block_values: Vec<H::Domain>,
    ) -> Result<Self, FilecoinError> {
        Self::new(shape_of::<Tree>(leaf_count)?, block_leaves, block_values)
    }

    /// A tree whose levels have `arities` (leaves first).
    fn new(
        arities: Vec<usize>,
        block_leaves: u64,
        block_values: Vec<H::Domain>,
    ) -> Result<Self, FilecoinError> {
        let mut spans = vec![1u64];
        for &arity in &arities {
            let span = spans
                .last()
                .and_then(|s| s.checked_mul(arity as u64))
                .ok_or_else(|| synthetic_error("a tree of more than 2^64 leaves"))?;
            spans.push(span);
        }
        let leaf_count = *spans.last().expect("spans start with 1");
        if block_leaves == 0
            || !leaf_count.is_multiple_of(block_leaves)
            || leaf_count / block_leaves != block_values.len() as u64
        {
            return Err(synthetic_error(format!(
                "{} blocks of {block_leaves} leaves do not make a tree of {leaf_count} leaves",
                block_values.len()
            )));
        }

        let mut per_block = vec![block_values];
        while per_block.len() <= arities.len()
            && block_leaves.is_multiple_of(spans[per_block.len()])
        {
            let height = per_block.len() - 1;
            let arity = arities[height];
            let row = per_block[height]
                .par_iter()
                .map(|&value| hash_children::<H>(&vec![value; arity], height))
                .collect();
            per_block.push(row);
        }
        let uniform = per_block.len() - 1;

        let full_count = leaf_count / spans[uniform];
        if full_count > MAX_FULL_LEVEL {
            return Err(synthetic_error(format!(
                "blocks of {block_leaves} leaves leave {full_count} distinct nodes at height \
                 {uniform} of a tree of arities {arities:?}"
            )));
        }
        let per_node = block_leaves / spans[uniform];
        let row: Vec<H::Domain> = (0..full_count)
            .map(|i| per_block[uniform][(i / per_node) as usize])
            .collect();
        let mut above: Vec<Vec<H::Domain>> = Vec::with_capacity(arities.len() - uniform);
        for (height, &arity) in arities.iter().enumerate().skip(uniform) {
            let below = above.last().unwrap_or(&row);
            let next = below
                .par_chunks(arity)
                .map(|children| hash_children::<H>(children, height))
                .collect();
            above.push(next);
        }
        Ok(BlockTree {
            arities,
            spans,
            block_leaves,
            per_block,
            above,
        })
    }
}

impl<H: Hasher> NodeValues<H> for BlockTree<H> {
    fn arities(&self) -> &[usize] {
        &self.arities
    }

    fn node(&self, height: usize, index: u64) -> H::Domain {
        let uniform = self.per_block.len() - 1;
        if height <= uniform {
            let per_block = self.block_leaves / self.spans[height];
            self.per_block[height][(index / per_block) as usize]
        } else {
            self.above[height - uniform - 1][index as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filecoin::synthetic::SparseTree;
    use filecoin_hashers::poseidon::PoseidonHasher;
    use filecoin_hashers::sha256::Sha256Hasher;
    use filecoin_proofs::constants::{SectorShape2KiB, SectorShape32GiB};
    use std::collections::BTreeMap;
    use storage_proofs_core::merkle::MerkleProofTrait;

    /// A block tree equals the sparse tree of the same leaves, leaf by leaf set.
    #[test]
    fn equals_a_sparse_tree_of_the_same_leaves() {
        let mut rng = StdRng::seed_from_u64(11);
        let values: Vec<_> = (0..4).map(|_| random_domain(&mut rng)).collect();
        let leaves: BTreeMap<u64, _> = (0..64u64).map(|i| (i, values[i as usize / 16])).collect();
        let sparse =
            SparseTree::<PoseidonHasher>::for_shape::<SectorShape2KiB>(64, values[0], leaves)
                .unwrap();
        let blocks =
            BlockTree::<PoseidonHasher>::for_shape::<SectorShape2KiB>(64, 16, values).unwrap();
        assert_eq!(blocks.root(), sparse.root());
        for index in [0u64, 15, 16, 40, 63] {
            assert_eq!(blocks.path(index).unwrap(), sparse.path(index).unwrap());
            assert!(blocks.proof::<SectorShape2KiB>(index).unwrap().verify());
        }
        assert!(blocks.proof::<SectorShape2KiB>(64).is_err());

        let values: Vec<_> = (0..8).map(|_| random_domain(&mut rng)).collect();
        let leaves: BTreeMap<u64, _> = (0..32u64).map(|i| (i, values[i as usize / 4])).collect();
        let sparse = SparseTree::<Sha256Hasher>::new(vec![2; 5], values[0], leaves).unwrap();
        let blocks = BlockTree::<Sha256Hasher>::new(vec![2; 5], 4, values).unwrap();
        assert_eq!(blocks.root(), sparse.root());
        assert_eq!(blocks.path(21).unwrap(), sparse.path(21).unwrap());
    }

    /// 2^30 leaves in 1024 blocks, in the 8-8-0 shape, where blocks of 2^20 leaves are not
    /// a power of the arity.
    #[test]
    fn a_32_gib_block_tree_opens_every_block() {
        let mut rng = StdRng::seed_from_u64(12);
        let values: Vec<_> = (0..1024).map(|_| random_domain(&mut rng)).collect();
        let tree = BlockTree::<PoseidonHasher>::for_shape::<SectorShape32GiB>(
            1 << 30,
            1 << 20,
            values.clone(),
        )
        .unwrap();
        for index in [
            0u64,
            (1 << 20) - 1,
            1 << 20,
            (1 << 29) + 12345,
            (1 << 30) - 1,
        ] {
            let proof = tree.proof::<SectorShape32GiB>(index).unwrap();
            assert_eq!(proof.leaf(), values[(index >> 20) as usize]);
            assert!(proof.validate(index as usize), "leaf {index}");
        }
    }

    #[test]
    fn misfit_blocks_are_refused() {
        let value = random_domain(&mut StdRng::seed_from_u64(13));
        assert!(BlockTree::<PoseidonHasher>::new(vec![8, 8], 24, vec![value; 3]).is_err());
        assert!(BlockTree::<PoseidonHasher>::new(vec![8, 8], 16, vec![value; 3]).is_err());
        assert!(BlockTree::<PoseidonHasher>::new(vec![8, 8], 0, vec![]).is_err());
    }
}
