//! The witness of neptune's Poseidon hash circuit (`neptune::circuit::poseidon_hash`, the
//! circuit storage-proofs' `PoseidonFunction` hashes with in every Filecoin circuit).
//!
//! That circuit keeps each state element either as an allocated variable or as a linear
//! combination ("Num") and allocates only where an S-box needs a variable. For a preimage of
//! allocated variables and width `t = arity + 1`, the allocations are, in order:
//! - first full round: element 0 (the domain tag, a constant) is computed, not allocated;
//!   each other element `l` gets `(l + k)^2`, its square, and `(l + k)^5 + k'` (three
//!   values), `k` and `k'` the round's pre- and post-round constants;
//! - every other full round, every element, and every partial round, element 0: the
//!   element itself (it is a linear combination after the MDS product), `l^2`, `l^4` and
//!   `l^5 + k` (four values; the terminal round adds no constant);
//! - the hash: state element 1, allocated at the end.
//!
//! Between rounds the state is multiplied by the MDS matrix, or by the pre-sparse and sparse
//! matrices of neptune's optimized round structure around the partial rounds, as the circuit
//! does. Only the values matter here: field arithmetic is exact, so sums taken in another
//! order than the circuit's are the same values.

use blstrs::Scalar;
use ff::Field;
use filecoin_hashers::PoseidonArity;

/// Why a Poseidon witness could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoseidonWitnessError {
    #[error("a Poseidon hash of arity {arity} takes {arity} elements, {got} given")]
    PreimageLength { arity: usize, got: usize },
}

/// Appends to `aux` the values neptune's `poseidon_hash` circuit allocates for `preimage`
/// (given as already allocated variables, as storage-proofs passes them), with the arity
/// `A`'s constants as storage-proofs uses them (`A::PARAMETERS()`), and returns the hash (the
/// last value appended).
pub fn poseidon_hash<A: PoseidonArity>(
    preimage: &[Scalar],
    aux: &mut Vec<Scalar>,
) -> Result<Scalar, PoseidonWitnessError> {
    poseidon_hash_with(A::PARAMETERS(), preimage, aux)
}

/// As [`poseidon_hash`] with other constants of the same arity (SnapDeals derives its
/// randomness with a hash type of its own, `POSEIDON_CONSTANTS_GEN_RANDOMNESS`).
pub fn poseidon_hash_with<A: PoseidonArity>(
    constants: &neptune::poseidon::PoseidonConstants<Scalar, A>,
    preimage: &[Scalar],
    aux: &mut Vec<Scalar>,
) -> Result<Scalar, PoseidonWitnessError> {
    let width = constants.width();
    if preimage.len() + 1 != width {
        return Err(PoseidonWitnessError::PreimageLength {
            arity: width - 1,
            got: preimage.len(),
        });
    }
    let keys = &constants.compressed_round_constants;
    let half_full = constants.half_full_rounds;
    let partial = constants.partial_rounds;
    aux.reserve(3 * (width - 1) + 4 * width * (constants.full_rounds - 1) + 4 * partial + 1);

    let mut state = Vec::with_capacity(width);
    let mut next = vec![Scalar::ZERO; width];
    let mut offset = 0;

    // First full round: pre- and post-round constants.
    let (pre, post) = (&keys[..width], &keys[width..2 * width]);
    offset += 2 * width;
    let mut tag = constants.domain_tag + pre[0];
    tag = tag.square().square() * tag + post[0];
    state.push(tag);
    for (i, l) in preimage.iter().enumerate() {
        let shifted = *l + pre[i + 1];
        let l2 = shifted.square();
        let l4 = l2.square();
        let l5 = l4 * shifted + post[i + 1];
        aux.extend([l2, l4, l5]);
        state.push(l5);
    }
    let mut round = 0;
    mds_product(constants, round, &state, &mut next);
    std::mem::swap(&mut state, &mut next);
    round += 1;

    // Full rounds after the first (with post-round constants) and before the partial ones.
    let full_round = |state: &mut [Scalar], keys: Option<&[Scalar]>, aux: &mut Vec<Scalar>| {
        for (i, l) in state.iter_mut().enumerate() {
            *l = s_box(*l, keys.map(|k| k[i]), aux);
        }
    };
    for _ in 1..half_full {
        full_round(&mut state, Some(&keys[offset..offset + width]), aux);
        offset += width;
        mds_product(constants, round, &state, &mut next);
        std::mem::swap(&mut state, &mut next);
        round += 1;
    }
    for _ in 0..partial {
        state[0] = s_box(state[0], Some(keys[offset]), aux);
        offset += 1;
        mds_product(constants, round, &state, &mut next);
        std::mem::swap(&mut state, &mut next);
        round += 1;
    }
    for last in (0..half_full).rev().map(|left| left == 0) {
        let round_keys = (!last).then(|| &keys[offset..offset + width]);
        full_round(&mut state, round_keys, aux);
        if !last {
            offset += width;
        }
        mds_product(constants, round, &state, &mut next);
        std::mem::swap(&mut state, &mut next);
        round += 1;
    }
    // The hash: state element 1, a linear combination, allocated.
    aux.push(state[1]);
    Ok(state[1])
}

/// The S-box of an element held as a linear combination: the element is allocated, then
/// `l^2`, `l^4` and `l^5 (+ key)`.
fn s_box(l: Scalar, key: Option<Scalar>, aux: &mut Vec<Scalar>) -> Scalar {
    let l2 = l.square();
    let l4 = l2.square();
    let mut l5 = l4 * l;
    if let Some(k) = key {
        l5 += k;
    }
    aux.extend([l, l2, l4, l5]);
    l5
}

/// `next = state x M` for the matrix of round `round` (counted from 0 over every round):
/// the pre-sparse matrix before the first partial round, a sparse matrix (a dense first row
/// and column, ones on the rest of the diagonal) for each partial round but the last, the
/// MDS matrix otherwise.
fn mds_product<A: PoseidonArity>(
    constants: &neptune::poseidon::PoseidonConstants<Scalar, A>,
    round: usize,
    state: &[Scalar],
    next: &mut [Scalar],
) {
    let sparse_offset = constants.half_full_rounds - 1;
    let dense = |matrix: &[Vec<Scalar>], next: &mut [Scalar]| {
        for (j, out) in next.iter_mut().enumerate() {
            *out = state.iter().zip(matrix).map(|(s, row)| *s * row[j]).sum();
        }
    };
    if round == sparse_offset {
        dense(&constants.pre_sparse_matrix, next);
    } else if round > sparse_offset && round < constants.half_full_rounds + constants.partial_rounds
    {
        let sparse = &constants.sparse_matrixes[round - sparse_offset - 1];
        next[0] = state.iter().zip(&sparse.w_hat).map(|(s, w)| *s * w).sum();
        for j in 1..state.len() {
            next[j] = state[j] + state[0] * sparse.v_rest[j - 1];
        }
    } else {
        dense(&constants.mds_matrices.m, next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper_core::num::AllocatedNum;
    use bellpepper_core::ConstraintSystem;
    use bellperson_lite::matrices::Witness;
    use filecoin_hashers::poseidon::PoseidonFunction;
    use filecoin_hashers::HashFunction;
    use generic_array::typenum::{U11, U16, U2, U4, U8};
    use rand::{Rng, SeedableRng};

    /// The gadget's allocations after the preimage's, and its hash, from storage-proofs'
    /// own Poseidon circuit in the witness-only constraint system.
    fn gadget<A: PoseidonArity>(preimage: &[Scalar]) -> (Vec<Scalar>, Scalar) {
        let mut cs = Witness::default();
        let vars: Vec<AllocatedNum<Scalar>> = preimage
            .iter()
            .enumerate()
            .map(|(i, v)| AllocatedNum::alloc(cs.namespace(|| format!("x{i}")), || Ok(*v)))
            .collect::<Result<_, _>>()
            .unwrap();
        let hash =
            PoseidonFunction::hash_multi_leaf_circuit::<A, _>(cs.namespace(|| "hash"), &vars, 0)
                .unwrap();
        let allocated = cs.aux[preimage.len()..].to_vec();
        (allocated, hash.get_value().unwrap())
    }

    fn check<A: PoseidonArity>(rng: &mut impl Rng) {
        let arity = A::PARAMETERS().arity();
        for round in 0..3 {
            let preimage: Vec<Scalar> = match round {
                0 => vec![Scalar::ZERO; arity],
                _ => (0..arity).map(|_| Scalar::random(&mut *rng)).collect(),
            };
            let (expected, hash) = gadget::<A>(&preimage);
            let mut aux = vec![Scalar::ONE]; // values already there stay
            let native = poseidon_hash::<A>(&preimage, &mut aux).unwrap();
            assert_eq!(aux[0], Scalar::ONE);
            assert_eq!(
                aux.len() - 1,
                expected.len(),
                "arity {arity}: allocation count"
            );
            assert!(aux[1..] == expected[..], "arity {arity}: allocated values");
            assert_eq!(native, hash, "arity {arity}: hash");
            // The native hash is Poseidon itself, not only the gadget's copy of it.
            let reference =
                neptune::poseidon::Poseidon::new_with_preimage(&preimage, A::PARAMETERS()).hash();
            assert_eq!(native, reference, "arity {arity}: neptune's hash");
        }
    }

    /// Every arity Filecoin's circuits hash with (2: comm_r and 64 GiB top trees, 4 and 8:
    /// tree arities, 11: PoRep columns, 16: 64 GiB sub-trees), value for value.
    #[test]
    fn same_values_as_the_gadget() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
        check::<U2>(&mut rng);
        check::<U4>(&mut rng);
        check::<U8>(&mut rng);
        check::<U11>(&mut rng);
        check::<U16>(&mut rng);
    }

    #[test]
    fn a_preimage_of_the_wrong_length_is_refused() {
        let mut aux = Vec::new();
        let err = poseidon_hash::<U8>(&[Scalar::ONE; 7], &mut aux).unwrap_err();
        assert_eq!(
            err,
            PoseidonWitnessError::PreimageLength { arity: 8, got: 7 }
        );
        assert!(aux.is_empty(), "nothing appended");
        assert!(err.to_string().contains("takes 8 elements, 7 given"));
    }
}
