//! Native witness generation: the values Filecoin's circuits allocate, computed directly.
//!
//! With a, b and c evaluated from recorded matrices, a partition's CPU work is its witness,
//! and bellpepper's gadgets spend most of that building linear combinations that a witness
//! never uses (a 32 GiB WindowPoSt partition: about 300 core-seconds, 17% of it in
//! `Indexer::insert_or_update` alone, and a third in field multiplications that go through
//! linear-combination arithmetic). The circuits are fixed by the network, so their witness
//! can be computed without them: the same values, appended in the same order as the gadgets
//! allocate them. Every generator here is checked against the gadget it replaces, value for
//! value, by running that gadget in bellperson-lite's witness-only constraint system.
//!
//! # Layout
//! - `poseidon`: neptune's Poseidon hash circuit (the one storage-proofs' Poseidon hasher
//!   uses), for every arity the Filecoin circuits hash with.
//! - `bits`: bits as the gadgets hold them (constant, variable, negated), numbers to bits
//!   and back.
//! - `sha256`: bellpepper's SHA-256 circuit (PoRep labels, SHA-256 Merkle trees), on
//!   bits that are constants, variables or negated variables as the gadget's are.
//! - `merkle`: storage-proofs' Merkle inclusion gadget (index bits, siblings, insertion,
//!   hash per level; the bits packed into inputs).
//! - `porep`: the StackedDrg circuit (PoRep commit phase 2), one partition from its
//!   challenges' openings.
//! - `snap`: the SnapDeals update circuit, one partition.
//! - `post`: the FallbackPoSt circuit (WindowPoSt and WinningPoSt) from its sectors.

use bellperson_lite::matrices::Witness;
use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

mod bits;
mod merkle;
mod porep;
mod poseidon;
mod post;
mod sha256;
mod snap;

pub use self::bits::Bit;
pub use self::merkle::{inclusion_path, path_from_options, MerkleWitnessError, PathLevel};
pub use self::porep::{stacked, ColumnOpening, PoRepChallenge, PoRepPartition, PoRepWitnessError};
pub use self::poseidon::{poseidon_hash, PoseidonWitnessError};
pub use self::post::{fallback_post, PoStSector, PoStWitnessError};
pub use self::sha256::sha256;
pub use self::snap::{
    empty_sector_update, SnapChallenge, SnapPartition, SnapShape, SnapWitnessError,
};

/// Appends to `w` the values of each of `items`, made by `each(index, item, buffer)`, in
/// order. Every item of a circuit has the same count of inputs and aux values, so the first
/// fixes it and the others are computed in parallel straight into their places, through one
/// reused buffer per thread (a fresh vector per item would have the allocator map and the
/// kernel zero new pages thousands of times). An item of another count is `shape(index,
/// its aux count, the first's)`.
fn append_in_parallel<T, E, F, S>(w: &mut Witness, items: &[T], each: F, shape: S) -> Result<(), E>
where
    T: Sync,
    E: Send,
    F: Fn(usize, &T, &mut Witness) -> Result<(), E> + Sync,
    S: Fn(usize, usize, usize) -> E + Sync,
{
    let Some(first) = items.first() else {
        return Ok(());
    };
    let (inputs_before, aux_before) = (w.inputs.len(), w.aux.len());
    each(0, first, w)?;
    let ni = w.inputs.len() - inputs_before;
    let na = w.aux.len() - aux_before;
    let rest = items.len() - 1;
    let (inputs_from, aux_from) = (w.inputs.len(), w.aux.len());
    // Zeroed by every thread at once: the pages of a few GB are first touched here, and the
    // kernel's clearing of them is most of this function's time when done on one thread.
    w.inputs
        .par_extend(rayon::iter::repeat_n(Scalar::ZERO, ni * rest));
    w.aux
        .par_extend(rayon::iter::repeat_n(Scalar::ZERO, na * rest));
    let inputs = item_slices(&mut w.inputs[inputs_from..], ni, rest);
    let aux = item_slices(&mut w.aux[aux_from..], na, rest);
    inputs
        .into_par_iter()
        .zip(aux)
        .zip(&items[1..])
        .enumerate()
        .map(|(i, chunks)| (i + 1, chunks))
        .try_for_each_init(Witness::default, |buffer, (i, ((inputs, aux), item))| {
            buffer.inputs.clear();
            buffer.aux.clear();
            each(i, item, buffer)?;
            if (buffer.inputs.len(), buffer.aux.len()) != (ni, na) {
                return Err(shape(i, buffer.aux.len(), na));
            }
            inputs.copy_from_slice(&buffer.inputs);
            aux.copy_from_slice(&buffer.aux);
            Ok(())
        })
}

/// Test helper for the kinds: `partition`'s native witness against its gadgets' witness (the
/// circuit run in the witness-only constraint system), every input and aux value.
#[cfg(test)]
pub(crate) fn assert_native_equals_gadgets(partition: &crate::Partition) {
    let expected = partition.gadget_witness().unwrap().unwrap();
    let native = partition.native_witness().unwrap().unwrap();
    assert_witnesses_equal(&native, &expected, "");
}

/// Test helper: two witnesses equal in every input and aux value; on a difference the message
/// starts with `what` and names the first aux value that differs (not gigabytes of values).
#[cfg(test)]
pub(crate) fn assert_witnesses_equal(
    native: &bellperson_lite::matrices::Witness,
    expected: &bellperson_lite::matrices::Witness,
    what: &str,
) {
    assert_eq!(
        native.inputs.len(),
        expected.inputs.len(),
        "{what}input count"
    );
    assert!(native.inputs == expected.inputs, "{what}input values");
    assert_eq!(native.aux.len(), expected.aux.len(), "{what}aux count");
    let first_difference = native
        .aux
        .iter()
        .zip(&expected.aux)
        .position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "{what}aux values");
}

/// `count` slices of `n` values each, empty ones where `n` is 0 (SnapDeals' challenges have
/// no inputs: chunks of zero would be no slices at all, and no item computed).
fn item_slices(values: &mut [Scalar], n: usize, count: usize) -> Vec<&mut [Scalar]> {
    if n == 0 {
        (0..count).map(|_| <&mut [Scalar]>::default()).collect()
    } else {
        values.chunks_mut(n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items with and without inputs (SnapDeals' challenges have none) land where a serial
    /// run puts them; an item of another size is the shape error.
    #[test]
    fn items_are_appended_in_order() {
        for inputs_per_item in [0, 1, 2] {
            let items: Vec<u64> = (0..37).collect();
            let each = |_: usize, item: &u64, w: &mut Witness| -> Result<(), usize> {
                for k in 0..inputs_per_item {
                    w.inputs.push(Scalar::from(item * 10 + k));
                }
                w.aux.extend((0..3).map(|k| Scalar::from(item * 100 + k)));
                Ok(())
            };
            let mut serial = Witness {
                inputs: vec![Scalar::ONE],
                aux: vec![Scalar::ZERO],
            };
            for (i, item) in items.iter().enumerate() {
                each(i, item, &mut serial).unwrap();
            }
            let mut parallel = Witness {
                inputs: vec![Scalar::ONE],
                aux: vec![Scalar::ZERO],
            };
            append_in_parallel(&mut parallel, &items, each, |i, _, _| i).unwrap();
            assert!(parallel == serial, "{inputs_per_item} inputs per item");
        }
        let uneven = |i: usize, _: &u64, w: &mut Witness| -> Result<(), usize> {
            w.aux
                .extend(std::iter::repeat_n(Scalar::ONE, 1 + usize::from(i == 5)));
            Ok(())
        };
        let mut w = Witness::default();
        let items: Vec<u64> = (0..8).collect();
        assert_eq!(
            append_in_parallel(&mut w, &items, uneven, |i, _, _| i),
            Err(5)
        );
    }
}
