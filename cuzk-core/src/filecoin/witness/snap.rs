//! The witness of storage-proofs-update's `EmptySectorUpdateCircuit` (a SnapDeals update, one
//! partition). The circuit allocates, in order:
//! - `k_and_h_select` (also an input) and its low bits (the partition index k, then one bit
//!   per candidate h), k packed; comm_r_old, comm_d_new and comm_r_new (inputs too);
//!   phi = Poseidon(comm_d_new, comm_r_old) with the randomness constants; comm_c, the old and
//!   new tree_r roots, the partition's apex leaves and the siblings of the partition's path
//!   in tree_d;
//! - comm_c's Poseidon with each root, which must be comm_r_old and comm_r_new;
//! - the apex tree (SHA-256 of pairs, row by row) and the path of its root to comm_d_new;
//! - the challenges' bits: per digest, its index and Poseidon(comm_r_new, index), whose 255
//!   bits are cut into challenges;
//! - per challenge: its high bits packed for each candidate h and the one h_select picks,
//!   rho = Poseidon(phi, high bits), the old replica's and new data's leaves, the new
//!   replica's leaf (old + data x rho, through the product), the old and new tree_r paths
//!   (their siblings, then their hashes), the apex leaf the challenge selects, and the
//!   data's path up to it (SHA-256).
//!
//! Every allocated value is appended to `aux` in that order; the challenges are computed in
//! parallel, each straight into its place.

use bellperson_lite::matrices::Witness;
use blstrs::Scalar;
use ff::{Field, PrimeField, PrimeFieldBits};
use generic_array::typenum::U2;
use storage_proofs_update::constants::POSEIDON_CONSTANTS_GEN_RANDOMNESS;

use super::append_in_parallel;
use super::bits::pack_bits_of_bools;
use super::merkle::{path_with_bits, select, sha256_of_nums, MerkleWitnessError, TreeHash};
use super::poseidon::{poseidon_hash, poseidon_hash_with, PoseidonWitnessError};

/// The circuit's shape (`storage_proofs_update::PublicParams`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapShape {
    pub challenge_count: usize,
    /// Bits of a challenged node's index (log2 of the sector's nodes).
    pub challenge_bit_len: usize,
    /// Bits of the partition index (its high bits).
    pub partition_bit_len: usize,
    /// Bits that select an apex leaf, below the partition's.
    pub apex_leaf_bit_len: usize,
    /// The candidate h values (high bits of a challenge that pick its rho); h_select names
    /// one of them.
    pub hs: Vec<usize>,
}

/// What the circuit reads of one challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapChallenge {
    pub leaf_r_old: Scalar,
    /// Siblings per level of the old and new replica's tree_r, from the leaf up.
    pub path_r_old: Vec<Vec<Scalar>>,
    pub leaf_d_new: Scalar,
    /// The new replica's leaf as the vanilla proof has it: old + data x rho.
    pub leaf_r_new: Scalar,
    /// Siblings per level in the new data's tree_d (one each), from the leaf up: the levels
    /// below the apex leaves, then the partition's path.
    pub path_d_new: Vec<Vec<Scalar>>,
    pub path_r_new: Vec<Vec<Scalar>>,
}

/// What the circuit reads of one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapPartition {
    pub shape: SnapShape,
    pub k_and_h_select: Scalar,
    pub comm_r_old: Scalar,
    pub comm_d_new: Scalar,
    pub comm_r_new: Scalar,
    pub comm_c: Scalar,
    pub root_r_old: Scalar,
    pub root_r_new: Scalar,
    pub apex_leafs: Vec<Scalar>,
    pub challenges: Vec<SnapChallenge>,
}

/// Why a SnapDeals witness could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapWitnessError {
    #[error("Poseidon(comm_c, the {which} tree_r root) is not comm_r_{which}")]
    CommR { which: &'static str },
    #[error("the apex tree's path does not lead to comm_d_new")]
    Apex,
    #[error("challenge {challenge}: the {tree} path does not lead to its root")]
    Root {
        challenge: usize,
        tree: &'static str,
    },
    #[error("challenge {challenge}: the new replica's leaf is not old + data x rho")]
    Encoding { challenge: usize },
    #[error("{what}: {source}")]
    Path {
        what: String,
        source: MerkleWitnessError,
    },
    #[error("the partition's shape does not fit its inputs: {0}")]
    Shape(String),
    #[error(transparent)]
    Poseidon(#[from] PoseidonWitnessError),
}

/// The circuit's witness for `p` (inputs from the constant one on). A partition whose
/// commitments, paths or encoding do not check out is an error: the circuit would not be
/// satisfied.
pub fn empty_sector_update(p: &SnapPartition) -> Result<Witness, SnapWitnessError> {
    let s = &p.shape;
    let shape = |what: String| Err(SnapWitnessError::Shape(what));
    if s.challenge_bit_len < s.partition_bit_len + s.apex_leaf_bit_len {
        return shape("fewer challenge bits than partition and apex bits".into());
    }
    // Each digest gives at least one challenge of the bits below the partition's, and
    // k_and_h_select holds the partition's bits and one per h.
    let below = s.challenge_bit_len - s.partition_bit_len;
    if below == 0
        || below > Scalar::CAPACITY as usize
        || s.partition_bit_len + s.hs.len() > Scalar::NUM_BITS as usize
    {
        return shape(format!(
            "{} challenge bits, {} partition bits and {} values of h",
            s.challenge_bit_len,
            s.partition_bit_len,
            s.hs.len()
        ));
    }
    if p.apex_leafs.len() != 1 << s.apex_leaf_bit_len {
        return shape(format!(
            "{} apex leaves for {} apex bits",
            p.apex_leafs.len(),
            s.apex_leaf_bit_len
        ));
    }
    if p.challenges.len() != s.challenge_count {
        return shape(format!(
            "{} challenges, the shape has {}",
            p.challenges.len(),
            s.challenge_count
        ));
    }
    let below_partition = s.challenge_bit_len - s.partition_bit_len;
    let first = p
        .challenges
        .first()
        .ok_or_else(|| SnapWitnessError::Shape("no challenges".into()))?;
    if first.path_d_new.len() != s.challenge_bit_len {
        return shape(format!(
            "a tree_d path of {} levels for {} challenge bits",
            first.path_d_new.len(),
            s.challenge_bit_len
        ));
    }

    let mut w = Witness {
        inputs: vec![Scalar::ONE],
        aux: Vec::new(),
    };
    w.aux.push(p.k_and_h_select);
    w.inputs.push(p.k_and_h_select);
    let select_bits: Vec<bool> = p
        .k_and_h_select
        .to_le_bits()
        .into_iter()
        .take(s.partition_bit_len + s.hs.len())
        .collect();
    w.aux
        .extend(select_bits.iter().map(|&b| Scalar::from(u64::from(b))));
    let (partition_bits, h_select_bits) = select_bits.split_at(s.partition_bit_len);
    let partition = pack_bits_of_bools(partition_bits, &mut w.aux);
    for value in [p.comm_r_old, p.comm_d_new, p.comm_r_new] {
        w.aux.push(value);
        w.inputs.push(value);
    }
    let randomness = &*POSEIDON_CONSTANTS_GEN_RANDOMNESS;
    let phi = poseidon_hash_with(randomness, &[p.comm_d_new, p.comm_r_old], &mut w.aux)?;
    w.aux.extend([p.comm_c, p.root_r_old, p.root_r_new]);
    w.aux.extend_from_slice(&p.apex_leafs);
    let partition_path = &first.path_d_new[below_partition..];
    for siblings in partition_path {
        w.aux.extend_from_slice(siblings);
    }
    for (which, root, comm_r) in [
        ("old", p.root_r_old, p.comm_r_old),
        ("new", p.root_r_new, p.comm_r_new),
    ] {
        if poseidon_hash::<U2>(&[p.comm_c, root], &mut w.aux)? != comm_r {
            return Err(SnapWitnessError::CommR { which });
        }
    }

    // The apex tree, row by row, and its root's path (the partition's) to comm_d_new.
    let mut row = p.apex_leafs.clone();
    while row.len() > 1 {
        row = row
            .chunks(2)
            .map(|pair| sha256_of_nums(pair, &mut w.aux))
            .collect();
    }
    let apex_root = row[0];
    let computed = path_with_bits(
        apex_root,
        partition_path,
        partition_bits,
        TreeHash::Sha256,
        &mut w.aux,
    )
    .map_err(|source| SnapWitnessError::Path {
        what: "the partition's tree_d path".into(),
        source,
    })?;
    if computed != p.comm_d_new {
        return Err(SnapWitnessError::Apex);
    }

    // The challenges' bits, from as many digests as they need.
    let per_digest = Scalar::CAPACITY as usize / below_partition;
    let digests = s.challenge_count.div_ceil(per_digest);
    let mut challenge_bits: Vec<Vec<bool>> = Vec::with_capacity(s.challenge_count);
    for j in 0..digests {
        let index = partition * Scalar::from(digests as u64) + Scalar::from(j as u64);
        w.aux.push(index);
        let digest = poseidon_hash_with(randomness, &[p.comm_r_new, index], &mut w.aux)?;
        let bits: Vec<bool> = digest
            .to_le_bits()
            .into_iter()
            .take(Scalar::NUM_BITS as usize)
            .collect();
        w.aux
            .extend(bits.iter().map(|&b| Scalar::from(u64::from(b))));
        let take = per_digest.min(s.challenge_count - challenge_bits.len());
        challenge_bits.extend(
            bits.chunks(below_partition)
                .take(take)
                .map(|c| c.iter().chain(partition_bits).copied().collect()),
        );
    }

    let items: Vec<(&SnapChallenge, &Vec<bool>)> =
        p.challenges.iter().zip(&challenge_bits).collect();
    append_in_parallel(
        &mut w,
        &items,
        |i, (challenge, bits), out| {
            challenge_witness(i, challenge, bits, h_select_bits, phi, p, &mut out.aux)
        },
        |challenge, values, first| {
            SnapWitnessError::Shape(format!(
                "challenge {challenge} has {values} aux values, the first {first}"
            ))
        },
    )?;
    Ok(w)
}

/// Appends one challenge's aux values.
fn challenge_witness(
    index: usize,
    c: &SnapChallenge,
    c_bits: &[bool],
    h_select_bits: &[bool],
    phi: Scalar,
    p: &SnapPartition,
    aux: &mut Vec<Scalar>,
) -> Result<(), SnapWitnessError> {
    let s = &p.shape;
    // The high bits for every candidate h (each packed and allocated, then kept or zeroed
    // by its select bit), and their sum: the selected one.
    let mut selected = Scalar::ZERO;
    for (&h, &chosen) in s.hs.iter().zip(h_select_bits) {
        if h > c_bits.len() {
            return Err(SnapWitnessError::Shape(format!(
                "h = {h} above the {} challenge bits",
                c_bits.len()
            )));
        }
        let high = pack_bits_of_bools(&c_bits[c_bits.len() - h..], aux);
        let kept = if chosen { high } else { Scalar::ZERO };
        aux.push(kept);
        selected += kept;
    }
    aux.push(selected);
    let rho = poseidon_hash_with(&POSEIDON_CONSTANTS_GEN_RANDOMNESS, &[phi, selected], aux)?;
    aux.extend([c.leaf_r_old, c.leaf_d_new]);
    let data_rho = c.leaf_d_new * rho;
    aux.push(data_rho);
    let leaf_r_new = c.leaf_r_old + data_rho;
    aux.push(leaf_r_new);
    if leaf_r_new != c.leaf_r_new {
        return Err(SnapWitnessError::Encoding { challenge: index });
    }

    let path = |tree: &'static str,
                leaf: Scalar,
                levels: &[Vec<Scalar>],
                bits: &[bool],
                hash: TreeHash,
                root: Scalar,
                aux: &mut Vec<Scalar>| {
        let computed = path_with_bits(leaf, levels, bits, hash, aux).map_err(|source| {
            SnapWitnessError::Path {
                what: format!("challenge {index}, {tree}"),
                source,
            }
        })?;
        if computed == root {
            Ok(())
        } else {
            Err(SnapWitnessError::Root {
                challenge: index,
                tree,
            })
        }
    };
    for siblings in &c.path_r_old {
        aux.extend_from_slice(siblings);
    }
    path(
        "tree_r_old",
        c.leaf_r_old,
        &c.path_r_old,
        c_bits,
        TreeHash::Poseidon,
        p.root_r_old,
        aux,
    )?;
    for siblings in &c.path_r_new {
        aux.extend_from_slice(siblings);
    }
    path(
        "tree_r_new",
        leaf_r_new,
        &c.path_r_new,
        c_bits,
        TreeHash::Poseidon,
        p.root_r_new,
        aux,
    )?;

    let below_apex = s.challenge_bit_len - s.partition_bit_len - s.apex_leaf_bit_len;
    let apex_bits = &c_bits[below_apex..below_apex + s.apex_leaf_bit_len];
    let apex_leaf = select(&p.apex_leafs, apex_bits, aux);
    let to_apex = c.path_d_new.get(..below_apex).ok_or_else(|| {
        SnapWitnessError::Shape(format!("challenge {index}: a short tree_d path"))
    })?;
    for siblings in to_apex {
        aux.extend_from_slice(siblings);
    }
    path(
        "tree_d",
        c.leaf_d_new,
        to_apex,
        &c_bits[..below_apex],
        TreeHash::Sha256,
        apex_leaf,
        aux,
    )?;
    Ok(())
}
