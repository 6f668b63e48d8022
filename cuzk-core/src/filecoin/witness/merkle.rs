//! The witness of storage-proofs' Merkle inclusion gadget (`gadgets::por::PoRCircuit` with a
//! private root, as FallbackPoSt and PoRep use it): per level of the path, the index bits,
//! the siblings, the insertion of the current node among them (`gadgets::insertion`), and
//! the level's hash (Poseidon, or SHA-256 for PoRep's tree_d); the bits are packed into
//! public inputs at the end (`multipack::pack_into_inputs`).

use blstrs::Scalar;
use ff::Field;
use generic_array::typenum::{U2, U8};

use super::bits::{num_to_bits_le, pack_bits, pack_into_inputs, reverse_bit_numbering};
use super::poseidon::{poseidon_hash, PoseidonWitnessError};
use super::sha256::sha256;

/// One level of an inclusion path: the siblings of the node on the way up and its position
/// among the `siblings.len() + 1` children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathLevel {
    pub siblings: Vec<Scalar>,
    pub index: usize,
}

/// A path as storage-proofs' `MerkleProofTrait::as_options` gives it (siblings and index
/// per level, from the leaf up); `None` where a slot is empty.
pub fn path_from_options(
    options: Vec<(Vec<Option<Scalar>>, Option<usize>)>,
) -> Option<Vec<PathLevel>> {
    options
        .into_iter()
        .map(|(siblings, index)| {
            Some(PathLevel {
                siblings: siblings.into_iter().collect::<Option<Vec<Scalar>>>()?,
                index: index?,
            })
        })
        .collect()
}

/// Why an inclusion path's witness could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MerkleWitnessError {
    #[error(
        "a path level has {siblings} siblings: Filecoin's registered trees have arity 8, and 2 \
         at the top of a 64 GiB sector's"
    )]
    Arity { siblings: usize },
    #[error("a path level's index {index} is not below its arity {arity}")]
    Index { index: usize, arity: usize },
    #[error("the challenge's bits do not match the path's levels")]
    Bits,
    #[error(transparent)]
    Poseidon(#[from] PoseidonWitnessError),
}

/// The hash a tree is built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeHash {
    /// Poseidon of the level's children (tree_c, tree_r_last, tree_q): arities 8 and 2.
    Poseidon,
    /// SHA-256 of the two children's bits (PoRep's tree_d): arity 2 only.
    Sha256,
}

/// Appends what the gadget allocates for the path from `leaf` (the leaf allocated first)
/// and the packed index bits to `inputs`; returns the root the path computes. The caller
/// compares it with the root it expects (the circuit enforces equality, which a witness
/// cannot: a wrong path gives a witness that does not satisfy the circuit).
pub fn inclusion_path(
    leaf: Scalar,
    path: &[PathLevel],
    inputs: &mut Vec<Scalar>,
    aux: &mut Vec<Scalar>,
) -> Result<Scalar, MerkleWitnessError> {
    aux.push(leaf);
    inclusion_path_of_allocated(leaf, path, TreeHash::Poseidon, inputs, aux)
}

/// As [`inclusion_path`] for a leaf the circuit allocated before (PoRep's
/// `enforce_inclusion`, which passes the leaf and the root as allocated numbers).
pub fn inclusion_path_of_allocated(
    leaf: Scalar,
    path: &[PathLevel],
    hash: TreeHash,
    inputs: &mut Vec<Scalar>,
    aux: &mut Vec<Scalar>,
) -> Result<Scalar, MerkleWitnessError> {
    let mut current = leaf;
    let mut path_bits = Vec::new();
    for level in path {
        let arity = level.siblings.len() + 1;
        // Only the arities of the registered shapes (8-0-0, 8-8-0, 8-8-2, and binary SHA-256
        // trees): each is checked against storage-proofs' gadget in the tests; others are
        // refused, and the engine then keeps to the gadgets.
        let registered = match hash {
            TreeHash::Poseidon => matches!(arity, 2 | 8),
            TreeHash::Sha256 => arity == 2,
        };
        if !registered {
            return Err(MerkleWitnessError::Arity {
                siblings: level.siblings.len(),
            });
        }
        if level.index >= arity {
            return Err(MerkleWitnessError::Index {
                index: level.index,
                arity,
            });
        }
        let bits: Vec<bool> = (0..arity.trailing_zeros())
            .map(|i| (level.index >> i) & 1 == 1)
            .collect();
        aux.extend(bits.iter().map(|&b| Scalar::from(u64::from(b))));
        path_bits.extend_from_slice(&bits);
        aux.extend_from_slice(&level.siblings);
        let inserted = insert(current, &bits, &level.siblings, aux);
        current = match (hash, arity) {
            (TreeHash::Sha256, _) => sha256_of_nums(&inserted, aux),
            (TreeHash::Poseidon, 2) => poseidon_hash::<U2>(&inserted, aux)?,
            (TreeHash::Poseidon, _) => poseidon_hash::<U8>(&inserted, aux)?,
        };
    }
    pack_into_inputs(&path_bits, inputs);
    Ok(current)
}

/// storage-proofs' `por_no_challenge_input`: the path from `leaf` whose index bits
/// (least significant first, log2(arity) per level) and siblings the circuit allocated
/// before; nothing is allocated for them here, and nothing is packed into inputs. Returns
/// the root the path computes.
pub fn path_with_bits(
    leaf: Scalar,
    levels: &[Vec<Scalar>],
    bits: &[bool],
    hash: TreeHash,
    aux: &mut Vec<Scalar>,
) -> Result<Scalar, MerkleWitnessError> {
    let mut current = leaf;
    let mut bits = bits.iter().copied();
    for siblings in levels {
        let arity = siblings.len() + 1;
        let registered = match hash {
            TreeHash::Poseidon => matches!(arity, 2 | 8),
            TreeHash::Sha256 => arity == 2,
        };
        if !registered {
            return Err(MerkleWitnessError::Arity {
                siblings: siblings.len(),
            });
        }
        let index: Vec<bool> = bits
            .by_ref()
            .take(arity.trailing_zeros() as usize)
            .collect();
        if index.len() != arity.trailing_zeros() as usize {
            return Err(MerkleWitnessError::Bits);
        }
        let inserted = insert(current, &index, siblings, aux);
        current = match (hash, arity) {
            (TreeHash::Sha256, _) => sha256_of_nums(&inserted, aux),
            (TreeHash::Poseidon, 2) => poseidon_hash::<U2>(&inserted, aux)?,
            (TreeHash::Poseidon, _) => poseidon_hash::<U8>(&inserted, aux)?,
        };
    }
    if bits.next().is_some() {
        return Err(MerkleWitnessError::Bits);
    }
    Ok(current)
}

/// storage-proofs' `insertion::select`: the element of `from` (a power of two of them) the
/// little-endian `bits` name, through the gadget's picks (one allocated value each, the most
/// significant bit's first).
pub fn select(from: &[Scalar], bits: &[bool], aux: &mut Vec<Scalar>) -> Scalar {
    let mut state = from.to_vec();
    for &bit in bits.iter().rev() {
        let half = state.len() / 2;
        state = (0..half)
            .map(|j| {
                let picked = if bit { state[half + j] } else { state[j] };
                aux.push(picked);
                picked
            })
            .collect();
    }
    state[0]
}

/// filecoin-hashers' `Sha256Function::hash_multi_leaf_circuit`: each number's 255 bits
/// (allocated), padded to 32 bytes and bit-reversed per byte, then SHA-256, whose digest's
/// first 254 bits (bit-reversed per byte again) are packed into an allocated number.
pub(super) fn sha256_of_nums(nums: &[Scalar], aux: &mut Vec<Scalar>) -> Scalar {
    let mut preimage = Vec::with_capacity(nums.len() * 256);
    for num in nums {
        preimage.extend(reverse_bit_numbering(num_to_bits_le(num, aux)));
    }
    let digest = sha256(&preimage, aux);
    pack_bits(&reverse_bit_numbering(digest), aux)
}

/// `gadgets::insertion::insert` for 2 and 8 children: `element` placed among `elements` at
/// the position the little-endian `bits` give, through the gadget's own selections (each selection is an
/// allocated value, appended to `aux` in the gadget's order). Returns the inserted row.
fn insert(
    element: Scalar,
    bits: &[bool],
    elements: &[Scalar],
    aux: &mut Vec<Scalar>,
) -> Vec<Scalar> {
    // `insertion::pick`: one allocated value, `a` where the condition holds, else `b`.
    let mut pick = |condition: bool, a: Scalar, b: Scalar| -> Scalar {
        let picked = if condition { a } else { b };
        aux.push(picked);
        picked
    };
    match elements.len() + 1 {
        2 => {
            let (a, b) = (element, elements[0]);
            vec![pick(bits[0], b, a), pick(bits[0], a, b)]
        }
        // Arity 8 (`inclusion_path` admits only 2 and 8): `insertion::insert_8`.
        _ => {
            let (b0, b1, b2) = (bits[0], bits[1], bits[2]);
            let (a, b, c, d) = (element, elements[0], elements[1], elements[2]);
            let (e, f, g, h) = (elements[3], elements[4], elements[5], elements[6]);
            // `AllocatedBit::nor` and `and` of the two low bits, allocated first (a pick
            // of one and zero is the same allocated value).
            let (nor, and) = (!b0 && !b1, b0 && b1);
            pick(nor, Scalar::ONE, Scalar::ZERO);
            pick(and, Scalar::ONE, Scalar::ZERO);
            let p0_xx0 = pick(nor, a, b);
            let p0 = pick(b2, b, p0_xx0);
            let p1_x00 = pick(b0, a, b);
            let p1_xx0 = pick(b1, c, p1_x00);
            let p1 = pick(b2, c, p1_xx0);
            let p2_x10 = pick(b0, d, a);
            let p2_xx0 = pick(b1, p2_x10, c);
            let p2 = pick(b2, d, p2_xx0);
            let p3_xx0 = pick(and, a, d);
            let p3 = pick(b2, e, p3_xx0);
            let p4_xx1 = pick(nor, a, f);
            let p4 = pick(b2, p4_xx1, e);
            let p5_x01 = pick(b0, a, f);
            let p5_xx1 = pick(b1, g, p5_x01);
            let p5 = pick(b2, p5_xx1, f);
            let p6_x11 = pick(b0, h, a);
            let p6_xx1 = pick(b1, p6_x11, g);
            let p6 = pick(b2, p6_xx1, g);
            let p7_xx1 = pick(and, a, h);
            let p7 = pick(b2, p7_xx1, h);
            vec![p0, p1, p2, p3, p4, p5, p6, p7]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arities no registered shape has, and an index past the arity, are typed errors.
    #[test]
    fn unregistered_shapes_are_refused() {
        let (mut inputs, mut aux) = (Vec::new(), Vec::new());
        let level = |siblings: usize, index: usize| PathLevel {
            siblings: vec![Scalar::ONE; siblings],
            index,
        };
        let err = inclusion_path(Scalar::ONE, &[level(3, 0)], &mut inputs, &mut aux);
        assert_eq!(err, Err(MerkleWitnessError::Arity { siblings: 3 }));
        let err = inclusion_path(Scalar::ONE, &[level(7, 8)], &mut inputs, &mut aux);
        assert_eq!(err, Err(MerkleWitnessError::Index { index: 8, arity: 8 }));
        assert!(inclusion_path(Scalar::ONE, &[level(7, 7)], &mut inputs, &mut aux).is_ok());
    }
}
