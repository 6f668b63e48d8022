//! The witness of storage-proofs-porep's `StackedCircuit` (PoRep commit phase 2, one
//! partition). The circuit allocates, in order:
//! - the replica id (also an input) and its 255 bits; comm_d and comm_r (inputs too),
//!   comm_r_last and comm_c; Poseidon(comm_c, comm_r_last), which must be comm_r;
//! - per challenge: the data leaf and its path in tree_d (SHA-256); each DRG parent's column
//!   (one label per layer), its Poseidon hash and that hash's path in tree_c, then each
//!   expander parent's the same way; the challenge's 64 bits (packed into an input); per
//!   layer, the parents' labels as bits (DRG parents at this layer, expander parents at the
//!   layer below) and the node's label, SHA-256 of the replica id, the layer, the challenge and
//!   37 parents (the parents repeated to 37); the encoded node (last label plus data leaf) and
//!   its path in tree_r_last; the hash of the node's own column of labels and its path in
//!   tree_c.
//!
//! Each Merkle path's index bits are packed into inputs as the circuit goes. A challenge's
//! values have the same count in every challenge of a partition, so the challenges are
//! computed in parallel straight into their places.

use bellperson_lite::matrices::Witness;
use blstrs::Scalar;
use ff::Field;
use generic_array::typenum::{U11, U2};

use super::append_in_parallel;
use super::bits::{
    num_to_bits_le, pack_bits, pack_into_inputs, reverse_bit_numbering, u64_bits_le, Bit,
};
use super::merkle::{inclusion_path_of_allocated, MerkleWitnessError, PathLevel, TreeHash};
use super::poseidon::{poseidon_hash, PoseidonWitnessError};
use super::sha256::sha256;

/// The parents a label is computed from (`TOTAL_PARENTS`): the DRG and expander parents,
/// repeated.
const LABEL_PARENTS: usize = 37;
/// DRG (base) parents and expander parents per node, as storage-proofs' graphs have them.
const DRG_PARENTS: usize = 6;
const EXP_PARENTS: usize = 8;

/// A parent's (or the challenged node's) column: its label in every layer, and the path of
/// the column's hash in tree_c.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnOpening {
    pub labels: Vec<Scalar>,
    pub path: Vec<PathLevel>,
}

/// What the circuit reads of one challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoRepChallenge {
    /// The challenged node.
    pub node: u64,
    /// The node's leaf in tree_d (the sector's data) and its path.
    pub data_leaf: Scalar,
    pub data_path: Vec<PathLevel>,
    pub drg_parents: Vec<ColumnOpening>,
    pub exp_parents: Vec<ColumnOpening>,
    /// The path of the encoded node in tree_r_last.
    pub replica_path: Vec<PathLevel>,
    /// The path of the node's own column hash in tree_c (its labels are computed).
    pub column_path: Vec<PathLevel>,
}

/// What the circuit reads of one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoRepPartition {
    pub replica_id: Scalar,
    pub comm_d: Scalar,
    pub comm_r: Scalar,
    pub comm_r_last: Scalar,
    pub comm_c: Scalar,
    pub challenges: Vec<PoRepChallenge>,
}

/// Why a PoRep witness could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoRepWitnessError {
    #[error("Poseidon(comm_c, comm_r_last) is not comm_r")]
    CommR,
    #[error("challenge {challenge}: the {tree} path does not lead to its root")]
    Root {
        challenge: usize,
        tree: &'static str,
    },
    #[error("challenge {challenge}: the {tree} path: {source}")]
    Path {
        challenge: usize,
        tree: &'static str,
        source: MerkleWitnessError,
    },
    #[error(
        "challenge {challenge}: {drg} DRG and {exp} expander parents; the circuit takes \
         {DRG_PARENTS} and {EXP_PARENTS}"
    )]
    Parents {
        challenge: usize,
        drg: usize,
        exp: usize,
    },
    #[error(
        "challenge {challenge}: a column of {labels} labels; the circuit hashes columns of 2 \
         or 11 layers, all of one length"
    )]
    Layers { challenge: usize, labels: usize },
    #[error("challenge {challenge} has {values} aux values, the first {first}: the challenges of a partition have one shape")]
    Shape {
        challenge: usize,
        values: usize,
        first: usize,
    },
    #[error(transparent)]
    Poseidon(#[from] PoseidonWitnessError),
}

/// The circuit's witness for `partition` (inputs from the constant one on). A challenge
/// whose labels, columns or paths do not check out is an error: the circuit would not be
/// satisfied.
pub fn stacked(partition: &PoRepPartition) -> Result<Witness, PoRepWitnessError> {
    let mut w = Witness {
        inputs: vec![Scalar::ONE],
        aux: Vec::new(),
    };
    let p = partition;
    w.aux.push(p.replica_id);
    w.inputs.push(p.replica_id);
    let replica_id_bits = reverse_bit_numbering(num_to_bits_le(&p.replica_id, &mut w.aux));
    w.aux.push(p.comm_d);
    w.inputs.push(p.comm_d);
    w.aux.push(p.comm_r);
    w.inputs.push(p.comm_r);
    w.aux.extend([p.comm_r_last, p.comm_c]);
    if poseidon_hash::<U2>(&[p.comm_c, p.comm_r_last], &mut w.aux)? != p.comm_r {
        return Err(PoRepWitnessError::CommR);
    }
    append_in_parallel(
        &mut w,
        &p.challenges,
        |i, challenge, out| challenge_witness(i, challenge, p, &replica_id_bits, out),
        |challenge, values, first| PoRepWitnessError::Shape {
            challenge,
            values,
            first,
        },
    )?;
    Ok(w)
}

/// Appends one challenge's inputs and aux values to `w`.
fn challenge_witness(
    index: usize,
    c: &PoRepChallenge,
    p: &PoRepPartition,
    replica_id_bits: &[Bit],
    w: &mut Witness,
) -> Result<(), PoRepWitnessError> {
    if c.drg_parents.len() != DRG_PARENTS || c.exp_parents.len() != EXP_PARENTS {
        return Err(PoRepWitnessError::Parents {
            challenge: index,
            drg: c.drg_parents.len(),
            exp: c.exp_parents.len(),
        });
    }
    let layers = c.drg_parents[0].labels.len();
    let columns = c.drg_parents.iter().chain(&c.exp_parents);
    if !matches!(layers, 2 | 11) || columns.clone().any(|col| col.labels.len() != layers) {
        let labels = columns
            .map(|col| col.labels.len())
            .find(|&n| n != layers || !matches!(n, 2 | 11))
            .unwrap_or(layers);
        return Err(PoRepWitnessError::Layers {
            challenge: index,
            labels,
        });
    }
    let path = |tree: &'static str,
                leaf: Scalar,
                levels: &[PathLevel],
                hash: TreeHash,
                root: Scalar,
                w: &mut Witness| {
        let computed = inclusion_path_of_allocated(leaf, levels, hash, &mut w.inputs, &mut w.aux)
            .map_err(|source| PoRepWitnessError::Path {
            challenge: index,
            tree,
            source,
        })?;
        if computed == root {
            Ok(())
        } else {
            Err(PoRepWitnessError::Root {
                challenge: index,
                tree,
            })
        }
    };

    w.aux.push(c.data_leaf);
    path(
        "tree_d",
        c.data_leaf,
        &c.data_path,
        TreeHash::Sha256,
        p.comm_d,
        w,
    )?;
    for column in c.drg_parents.iter().chain(&c.exp_parents) {
        w.aux.extend_from_slice(&column.labels);
        let hash = column_hash(&column.labels, &mut w.aux)?;
        path(
            "tree_c",
            hash,
            &column.path,
            TreeHash::Poseidon,
            p.comm_c,
            w,
        )?;
    }
    let node_bits = u64_bits_le(c.node, &mut w.aux);
    pack_into_inputs(
        &node_bits.iter().map(|b| b.value()).collect::<Vec<_>>(),
        &mut w.inputs,
    );
    // The challenge as the label's preimage reads it: most significant bit first.
    let node_be: Vec<Bit> = node_bits.iter().rev().copied().collect();

    let mut labels = Vec::with_capacity(layers);
    for layer in 1..=layers {
        let mut parents: Vec<Vec<Bit>> = c
            .drg_parents
            .iter()
            .map(|col| reverse_bit_numbering(num_to_bits_le(&col.labels[layer - 1], &mut w.aux)))
            .collect();
        if layer > 1 {
            parents.extend(c.exp_parents.iter().map(|col| {
                reverse_bit_numbering(num_to_bits_le(&col.labels[layer - 2], &mut w.aux))
            }));
        }
        labels.push(label(
            replica_id_bits,
            layer as u32,
            &node_be,
            &parents,
            &mut w.aux,
        ));
    }

    let last = *labels.last().expect("two or eleven layers");
    let encoded = last + c.data_leaf;
    w.aux.push(encoded);
    path(
        "tree_r_last",
        encoded,
        &c.replica_path,
        TreeHash::Poseidon,
        p.comm_r_last,
        w,
    )?;
    let own_column = column_hash(&labels, &mut w.aux)?;
    path(
        "tree_c",
        own_column,
        &c.column_path,
        TreeHash::Poseidon,
        p.comm_c,
        w,
    )?;
    Ok(())
}

/// `hash_single_column`: Poseidon of a column of 2 or 11 labels (the caller checked which).
fn column_hash(labels: &[Scalar], aux: &mut Vec<Scalar>) -> Result<Scalar, PoseidonWitnessError> {
    match labels.len() {
        2 => poseidon_hash::<U2>(labels, aux),
        _ => poseidon_hash::<U11>(labels, aux),
    }
}

/// `create_label_circuit`: SHA-256 of the replica id (32 bytes), the layer (4 bytes) and
/// the node (8 bytes), zero-padded to 64 bytes, then 37 parents of 32 bytes (the given ones
/// repeated in order); the digest's first 254 bits (per-byte reversed) packed.
fn label(
    replica_id_bits: &[Bit],
    layer: u32,
    node_be: &[Bit],
    parents: &[Vec<Bit>],
    aux: &mut Vec<Scalar>,
) -> Scalar {
    let mut preimage = Vec::with_capacity((2 + LABEL_PARENTS) * 256);
    preimage.extend_from_slice(replica_id_bits);
    preimage.resize(256, Bit::Constant(false));
    preimage.extend((0..32).rev().map(|i| Bit::Constant((layer >> i) & 1 == 1)));
    preimage.extend_from_slice(node_be);
    preimage.resize(512, Bit::Constant(false));
    for parent in parents.iter().cycle().take(LABEL_PARENTS) {
        preimage.extend_from_slice(parent);
        while !preimage.len().is_multiple_of(256) {
            preimage.push(Bit::Constant(false));
        }
    }
    let digest = sha256(&preimage, aux);
    pack_bits(&reverse_bit_numbering(digest), aux)
}
