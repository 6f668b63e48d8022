//! Sparse Merkle trees: a tree of any size in which only a few leaves are set and every
//! other leaf holds one default value, so that a 2^30-leaf tree costs only the paths of the
//! leaves that are set.
//!
//! Every untouched subtree of height `h` has the same root (the default leaf hashed up `h`
//! levels), computed once per level. The tree is stored as one map per level holding only
//! the nodes above a set leaf; any node not in its level's map is that level's default.
//!
//! Nodes are hashed with the hasher's `multi_node`, the function storage-proofs' inclusion
//! paths verify with, so a path read from this tree is a valid `MerkleProof` of the tree
//! filecoin-proofs would build from the same leaves (checked against a real tree in the
//! tests).

use std::collections::{BTreeMap, HashMap};

use filecoin_hashers::{HashFunction, Hasher, PoseidonArity};
use generic_array::typenum::Unsigned;
use merkletree::hash::Algorithm;
use rayon::prelude::*;
use storage_proofs_core::merkle::{MerkleProof, MerkleTreeTrait};

use super::synthetic_error;
use crate::filecoin::FilecoinError;

/// A Merkle proof in the shape of `Tree` (storage-proofs' proofs of a sector's trees).
pub type ShapeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// A sparse tree over `H` whose levels have the given arities (leaves first).
pub struct SparseTree<H: Hasher> {
    /// Arity of each level, from the leaves up: a base tree's arity repeated for its height,
    /// then the sub-tree and top-tree arities of a compound tree.
    arities: Vec<usize>,
    /// The value of a node under which no leaf is set, per level (level 0: the default leaf).
    defaults: Vec<H::Domain>,
    /// The nodes above set leaves, per level (level 0: the set leaves).
    levels: Vec<HashMap<u64, H::Domain>>,
}

impl<H: Hasher> SparseTree<H> {
    /// A tree of `leaf_count` leaves in the shape of `Tree` (its base, sub-tree and top-tree
    /// arities), every leaf `default_leaf` except those in `leaves`.
    pub fn for_shape<Tree: MerkleTreeTrait<Hasher = H>>(
        leaf_count: u64,
        default_leaf: H::Domain,
        leaves: BTreeMap<u64, H::Domain>,
    ) -> Result<Self, FilecoinError> {
        Self::new(shape_of::<Tree>(leaf_count)?, default_leaf, leaves)
    }

    /// A tree whose levels have `arities` (leaves first).
    pub fn new(
        arities: Vec<usize>,
        default_leaf: H::Domain,
        leaves: BTreeMap<u64, H::Domain>,
    ) -> Result<Self, FilecoinError> {
        let leaf_count = arities
            .iter()
            .try_fold(1u64, |n, &a| n.checked_mul(a as u64))
            .ok_or_else(|| synthetic_error("a tree of more than 2^64 leaves"))?;
        if let Some((&index, _)) = leaves.range(leaf_count..).next() {
            return Err(synthetic_error(format!(
                "leaf {index} set in a tree of {leaf_count} leaves"
            )));
        }
        let mut defaults = vec![default_leaf];
        for &arity in &arities {
            let below = *defaults.last().expect("defaults start with the leaf");
            defaults.push(hash_children::<H>(&vec![below; arity], defaults.len() - 1));
        }
        let mut levels: Vec<HashMap<u64, H::Domain>> = vec![leaves.into_iter().collect()];
        for (height, &arity) in arities.iter().enumerate() {
            let below = &levels[height];
            let mut parents: Vec<u64> = below.keys().map(|&i| i / arity as u64).collect();
            parents.sort_unstable();
            parents.dedup();
            let default_below = defaults[height];
            let nodes: HashMap<u64, H::Domain> = parents
                .into_par_iter()
                .map(|parent| {
                    let children: Vec<H::Domain> = (0..arity as u64)
                        .map(|k| {
                            *below
                                .get(&(parent * arity as u64 + k))
                                .unwrap_or(&default_below)
                        })
                        .collect();
                    (parent, hash_children::<H>(&children, height))
                })
                .collect();
            levels.push(nodes);
        }
        Ok(SparseTree {
            arities,
            defaults,
            levels,
        })
    }
}

impl<H: Hasher> NodeValues<H> for SparseTree<H> {
    fn arities(&self) -> &[usize] {
        &self.arities
    }

    fn node(&self, height: usize, index: u64) -> H::Domain {
        *self.levels[height]
            .get(&index)
            .unwrap_or(&self.defaults[height])
    }
}

/// An inclusion path: per level from the leaves up, the siblings and the position among
/// them, as storage-proofs' `MerkleProof::from_parts` takes it.
pub type MerklePath<H> = Vec<(Vec<<H as Hasher>::Domain>, usize)>;

/// A Merkle tree that can give the value of any of its nodes, from which its paths and proofs
/// follow: [`SparseTree`], and SnapDeals' trees constant on blocks.
pub trait NodeValues<H: Hasher> {
    /// The arity of each level, from the leaves up.
    fn arities(&self) -> &[usize];

    /// The node at `index` of level `height` (0: the leaves); both in range.
    fn node(&self, height: usize, index: u64) -> H::Domain;

    fn leaf_count(&self) -> u64 {
        self.arities().iter().map(|&a| a as u64).product()
    }

    fn root(&self) -> H::Domain {
        self.node(self.arities().len(), 0)
    }

    fn leaf(&self, index: u64) -> H::Domain {
        self.node(0, index)
    }

    /// The inclusion path of leaf `index`.
    fn path(&self, index: u64) -> Result<MerklePath<H>, FilecoinError> {
        if index >= self.leaf_count() {
            return Err(synthetic_error(format!(
                "leaf {index} opened in a tree of {} leaves",
                self.leaf_count()
            )));
        }
        let mut node = index;
        Ok(self
            .arities()
            .iter()
            .enumerate()
            .map(|(height, &arity)| {
                let (parent, position) = (node / arity as u64, (node % arity as u64) as usize);
                let siblings = (0..arity as u64)
                    .filter(|&k| k != position as u64)
                    .map(|k| self.node(height, parent * arity as u64 + k))
                    .collect();
                node = parent;
                (siblings, position)
            })
            .collect())
    }

    /// The Merkle proof of leaf `index` with the given base, sub-tree and top-tree arities.
    fn proof_in<A: PoseidonArity, B: PoseidonArity, C: PoseidonArity>(
        &self,
        index: u64,
    ) -> Result<MerkleProof<H, A, B, C>, FilecoinError> {
        let path = self.path(index)?;
        Ok(MerkleProof::from_parts(self.leaf(index), self.root(), path))
    }

    /// The Merkle proof of leaf `index` in a tree of shape `Tree`.
    fn proof<Tree: MerkleTreeTrait<Hasher = H>>(
        &self,
        index: u64,
    ) -> Result<ShapeProof<Tree>, FilecoinError> {
        self.proof_in::<Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity>(index)
    }
}

/// One node from its children, as storage-proofs' inclusion paths compute it.
pub(super) fn hash_children<H: Hasher>(children: &[H::Domain], height: usize) -> H::Domain {
    let mut function = H::Function::default();
    function.multi_node(children, height)
}

/// The arities of the levels of a tree of `leaf_count` leaves in the shape of `Tree`.
pub(super) fn shape_of<Tree: MerkleTreeTrait>(
    leaf_count: u64,
) -> Result<Vec<usize>, FilecoinError> {
    shape_arities(
        leaf_count,
        Tree::Arity::to_usize(),
        Tree::SubTreeArity::to_usize(),
        Tree::TopTreeArity::to_usize(),
    )
}

/// The arities of the levels of a tree of `leaf_count` leaves with base arity `base` and
/// (0 when absent) sub-tree and top-tree arities, leaves first.
pub fn shape_arities(
    leaf_count: u64,
    base: usize,
    sub: usize,
    top: usize,
) -> Result<Vec<usize>, FilecoinError> {
    let bad = || {
        synthetic_error(format!(
            "{leaf_count} leaves do not make a tree of arities {base}-{sub}-{top}"
        ))
    };
    if base < 2 || (sub == 0 && top != 0) {
        return Err(bad());
    }
    let upper: Vec<usize> = [sub, top].into_iter().filter(|&a| a > 0).collect();
    let mut base_leaves = leaf_count;
    for &arity in &upper {
        if !base_leaves.is_multiple_of(arity as u64) {
            return Err(bad());
        }
        base_leaves /= arity as u64;
    }
    let mut arities = Vec::new();
    while base_leaves > 1 {
        if !base_leaves.is_multiple_of(base as u64) {
            return Err(bad());
        }
        base_leaves /= base as u64;
        arities.push(base);
    }
    if base_leaves != 1 || arities.is_empty() {
        return Err(bad());
    }
    arities.extend(upper);
    Ok(arities)
}

/// Hashes two nodes as a PoRep's comm_r is made from comm_c and comm_r_last.
pub fn hash2<H: Hasher>(a: &H::Domain, b: &H::Domain) -> H::Domain {
    <H::Function as HashFunction<H::Domain>>::hash2(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_hashers::poseidon::{PoseidonDomain, PoseidonHasher};
    use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
    use filecoin_hashers::Domain;
    use filecoin_proofs::constants::{SectorShape2KiB, SectorShape32GiB};
    use merkletree::store::VecStore;
    use rand::{Rng, SeedableRng};
    use storage_proofs_core::merkle::{
        BinaryMerkleTree, MerkleProofTrait, MerkleTreeTrait, MerkleTreeWrapper,
    };

    fn random_domain<D: Domain>(rng: &mut impl Rng) -> D {
        let mut bytes: [u8; 32] = rng.gen();
        bytes[31] &= 0x3f;
        D::try_from_bytes(&bytes).expect("a scalar below 2^254")
    }

    #[test]
    fn shapes_of_filecoin_trees() {
        assert_eq!(shape_arities(64, 8, 0, 0).unwrap(), vec![8, 8]);
        assert_eq!(
            shape_arities(1 << 30, 8, 8, 0).unwrap(),
            [vec![8; 9], vec![8]].concat()
        );
        assert_eq!(
            shape_arities(1 << 31, 8, 8, 2).unwrap(),
            [vec![8; 9], vec![8, 2]].concat()
        );
        assert_eq!(shape_arities(1 << 5, 2, 0, 0).unwrap(), vec![2; 5]);
        // Leaf counts the arities cannot divide are refused, not rounded.
        assert!(shape_arities(96, 8, 0, 0).is_err());
        assert!(shape_arities(64, 8, 0, 2).is_err());
        assert!(shape_arities(1, 8, 0, 0).is_err());
    }

    /// The same leaves in a full tree built by storage-proofs give the same root and the same
    /// proofs, which storage-proofs validates.
    #[test]
    fn equals_a_full_poseidon_tree() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let default_leaf: PoseidonDomain = random_domain(&mut rng);
        let mut set = BTreeMap::new();
        for index in [0u64, 5, 9, 63, 40] {
            set.insert(index, random_domain(&mut rng));
        }
        let sparse = SparseTree::<PoseidonHasher>::for_shape::<SectorShape2KiB>(
            64,
            default_leaf,
            set.clone(),
        )
        .unwrap();
        let leaves: Vec<PoseidonDomain> = (0..64)
            .map(|i| *set.get(&i).unwrap_or(&default_leaf))
            .collect();
        let full = MerkleTreeWrapper::<
            PoseidonHasher,
            VecStore<PoseidonDomain>,
            <SectorShape2KiB as MerkleTreeTrait>::Arity,
            <SectorShape2KiB as MerkleTreeTrait>::SubTreeArity,
            <SectorShape2KiB as MerkleTreeTrait>::TopTreeArity,
        >::try_from_iter(leaves.into_iter().map(Ok))
        .unwrap();
        assert_eq!(sparse.root(), full.root());
        for index in [0u64, 5, 6, 63] {
            let proof = sparse.proof::<SectorShape2KiB>(index).unwrap();
            let reference = full.gen_proof(index as usize).unwrap();
            assert_eq!(proof.path(), reference.path(), "leaf {index}");
            assert!(proof.validate(index as usize));
            assert!(
                !proof.validate(index as usize ^ 1),
                "a proof names its own leaf only"
            );
        }
    }

    #[test]
    fn equals_a_full_binary_sha256_tree() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let default_leaf: Sha256Domain = random_domain(&mut rng);
        let set: BTreeMap<u64, Sha256Domain> = [
            (3u64, random_domain(&mut rng)),
            (17, random_domain(&mut rng)),
        ]
        .into();
        let sparse =
            SparseTree::<Sha256Hasher>::new(vec![2; 5], default_leaf, set.clone()).unwrap();
        let leaves: Vec<Sha256Domain> = (0..32)
            .map(|i| *set.get(&i).unwrap_or(&default_leaf))
            .collect();
        let full =
            BinaryMerkleTree::<Sha256Hasher>::try_from_iter(leaves.into_iter().map(Ok)).unwrap();
        assert_eq!(sparse.root(), full.root());
        let proof = sparse
            .proof_in::<generic_array::typenum::U2, generic_array::typenum::U0, generic_array::typenum::U0>(17)
            .unwrap();
        assert!(proof.validate(17));
        assert_eq!(proof.path(), full.gen_proof(17).unwrap().path());
    }

    /// A 2^30-leaf compound tree (a 32 GiB sector's tree_r_last) with a few leaves set: its
    /// proofs have the compound shape and validate.
    #[test]
    fn a_32_gib_tree_opens_its_set_leaves() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let default_leaf: PoseidonDomain = random_domain(&mut rng);
        let indices = [1u64, (1 << 27) + 5, (1 << 30) - 1];
        let set: BTreeMap<u64, PoseidonDomain> = indices
            .iter()
            .map(|&i| (i, random_domain(&mut rng)))
            .collect();
        let tree = SparseTree::<PoseidonHasher>::for_shape::<SectorShape32GiB>(
            1 << 30,
            default_leaf,
            set.clone(),
        )
        .unwrap();
        for &index in &indices {
            let proof = tree.proof::<SectorShape32GiB>(index).unwrap();
            assert_eq!(proof.leaf(), set[&index]);
            assert_eq!(proof.path().len(), 10);
            assert!(proof.validate(index as usize), "leaf {index}");
            assert!(proof.verify());
        }
        assert!(tree.proof::<SectorShape32GiB>(1 << 30).is_err());
    }
}
