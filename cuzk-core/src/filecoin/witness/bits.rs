//! Bits as bellpepper's `Boolean` holds them, and the gadgets that turn numbers into bits and
//! back (`AllocatedNum::to_bits_le`, `multipack::pack_bits`, storage-proofs'
//! `reverse_bit_numbering`), with the values they allocate.

use blstrs::Scalar;
use ff::{Field, PrimeField};

/// A bit of the circuit: a constant, or an allocated variable (with its value) read directly
/// or negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bit {
    Constant(bool),
    Variable { value: bool, negated: bool },
}

impl Bit {
    /// A bit allocated with `value`, read as it is.
    pub fn allocated(value: bool) -> Bit {
        Bit::Variable {
            value,
            negated: false,
        }
    }

    /// The value the bit stands for.
    pub fn value(self) -> bool {
        match self {
            Bit::Constant(b) => b,
            Bit::Variable { value, negated } => value ^ negated,
        }
    }

    pub(super) fn not(self) -> Bit {
        match self {
            Bit::Constant(b) => Bit::Constant(!b),
            Bit::Variable { value, negated } => Bit::Variable {
                value,
                negated: !negated,
            },
        }
    }

    pub(super) fn is_constant(self) -> bool {
        matches!(self, Bit::Constant(_))
    }
}

fn scalar_of(b: bool) -> Scalar {
    if b {
        Scalar::ONE
    } else {
        Scalar::ZERO
    }
}

/// Appends a newly allocated bit and returns it.
pub(super) fn alloc(value: bool, aux: &mut Vec<Scalar>) -> Bit {
    aux.push(scalar_of(value));
    Bit::allocated(value)
}

/// `AllocatedNum::to_bits_le`: the value's 255 bits, least significant first, each
/// allocated.
pub(super) fn num_to_bits_le(value: &Scalar, aux: &mut Vec<Scalar>) -> Vec<Bit> {
    let bytes = value.to_bytes_le();
    (0..Scalar::NUM_BITS as usize)
        .map(|i| alloc((bytes[i / 8] >> (i % 8)) & 1 == 1, aux))
        .collect()
}

/// `u64` allocated as 64 bits (storage-proofs' `UInt64::alloc`), least significant first.
pub(super) fn u64_bits_le(value: u64, aux: &mut Vec<Scalar>) -> Vec<Bit> {
    (0..64).map(|i| alloc((value >> i) & 1 == 1, aux)).collect()
}

/// storage-proofs' `reverse_bit_numbering`: padded with constant zeros to whole bytes, each
/// byte's bits in reverse order.
pub(super) fn reverse_bit_numbering(mut bits: Vec<Bit>) -> Vec<Bit> {
    while !bits.len().is_multiple_of(8) {
        bits.push(Bit::Constant(false));
    }
    bits.chunks(8)
        .flat_map(|byte| byte.iter().rev().copied())
        .collect()
}

/// The number the first `CAPACITY` (254) of `bits` make, least significant first.
fn pack(bits: impl IntoIterator<Item = bool>) -> Scalar {
    let mut sum = Scalar::ZERO;
    let mut coeff = Scalar::ONE;
    for bit in bits.into_iter().take(Scalar::CAPACITY as usize) {
        if bit {
            sum += coeff;
        }
        coeff = coeff.double();
    }
    sum
}

/// `multipack::pack_bits`: the packed number, allocated.
pub(super) fn pack_bits(bits: &[Bit], aux: &mut Vec<Scalar>) -> Scalar {
    let value = pack(bits.iter().map(|b| b.value()));
    aux.push(value);
    value
}

/// `multipack::pack_bits` of allocated bits given by their values.
pub(super) fn pack_bits_of_bools(bits: &[bool], aux: &mut Vec<Scalar>) -> Scalar {
    let value = pack(bits.iter().copied());
    aux.push(value);
    value
}

/// `multipack::pack_into_inputs`: the bits in inputs of `CAPACITY` bits each.
pub(super) fn pack_into_inputs(bits: &[bool], inputs: &mut Vec<Scalar>) {
    for chunk in bits.chunks(Scalar::CAPACITY as usize) {
        inputs.push(pack(chunk.iter().copied()));
    }
}
