//! The witness of bellpepper's SHA-256 circuit (`bellpepper::gadgets::sha256::sha256`, the
//! one storage-proofs' PoRep labels and SHA-256 Merkle trees hash with).
//!
//! That circuit works on bits, and a bit is a constant, a variable, or a variable's negation;
//! it allocates only where an operation has no constant to simplify with. So the witness is
//! computed here on the same three kinds of bit ([`Bit`]), with the gadget's simplification
//! rules, and every allocation appends its value (0 or 1) to `aux` in the gadget's order:
//! - XOR of two non-constant bits: one value, the XOR of the two variables (a negation on
//!   either side is carried by the result, not allocated).
//! - AND of two non-constant bits: one value, the AND of the two bits.
//! - Ch and Maj of three non-constant bits: one value each; Maj then allocates `b AND c`.
//!   With a constant among them, the gadget rewrites them as one AND (or a copy), done here
//!   the same way.
//! - The sum of n 32-bit words: the bits of the full sum, as many as `n * (2^32 - 1)` needs
//!   (33 to 36), unless every bit of every word is constant.
//!
//! A compression's words are built, rotated and shifted as the gadget does (shifts bring
//! constant zeros in), its additions deferred as the gadget defers them, and the padding of
//! `sha256` is constant bits. Nothing else is allocated (`MultiEq` only packs equalities).

use blstrs::Scalar;

use super::bits::{alloc, Bit};

/// `Boolean::xor`.
fn xor(a: Bit, b: Bit, aux: &mut Vec<Scalar>) -> Bit {
    match (a, b) {
        (Bit::Constant(false), x) | (x, Bit::Constant(false)) => x,
        (Bit::Constant(true), x) | (x, Bit::Constant(true)) => x.not(),
        (
            Bit::Variable {
                value: va,
                negated: na,
            },
            Bit::Variable {
                value: vb,
                negated: nb,
            },
        ) => {
            // The variables' XOR is allocated; a negation of one side negates the result.
            alloc(va ^ vb, aux);
            Bit::Variable {
                value: va ^ vb,
                negated: na ^ nb,
            }
        }
    }
}

/// `Boolean::and`: an allocation holds the AND of the bits' values (through `and`,
/// `and_not` or `nor` of the variables, which all come to that).
fn and(a: Bit, b: Bit, aux: &mut Vec<Scalar>) -> Bit {
    match (a, b) {
        (Bit::Constant(false), _) | (_, Bit::Constant(false)) => Bit::Constant(false),
        (Bit::Constant(true), x) | (x, Bit::Constant(true)) => x,
        (a, b) => alloc(a.value() & b.value(), aux),
    }
}

/// `Boolean::sha256_ch`: (a AND b) XOR (NOT a AND c).
fn ch(a: Bit, b: Bit, c: Bit, aux: &mut Vec<Scalar>) -> Bit {
    let value = (a.value() & b.value()) ^ (!a.value() & c.value());
    match (a, b, c) {
        (Bit::Constant(_), Bit::Constant(_), Bit::Constant(_)) => Bit::Constant(value),
        (Bit::Constant(false), _, c) => c,
        (a, Bit::Constant(false), c) => and(a.not(), c, aux),
        (a, b, Bit::Constant(false)) => and(a, b, aux),
        (a, b, Bit::Constant(true)) => and(a, b.not(), aux).not(),
        (a, Bit::Constant(true), c) => and(a.not(), c.not(), aux).not(),
        // a is true, or all three are variables.
        _ => alloc(value, aux),
    }
}

/// `Boolean::sha256_maj`: (a AND b) XOR (a AND c) XOR (b AND c).
fn maj(a: Bit, b: Bit, c: Bit, aux: &mut Vec<Scalar>) -> Bit {
    let (va, vb, vc) = (a.value(), b.value(), c.value());
    let value = (va & vb) ^ (va & vc) ^ (vb & vc);
    match (a, b, c) {
        (Bit::Constant(_), Bit::Constant(_), Bit::Constant(_)) => Bit::Constant(value),
        (Bit::Constant(false), b, c) => and(b, c, aux),
        (a, Bit::Constant(false), c) => and(a, c, aux),
        (a, b, Bit::Constant(false)) => and(a, b, aux),
        (a, b, Bit::Constant(true)) => and(a.not(), b.not(), aux).not(),
        (a, Bit::Constant(true), c) => and(a.not(), c.not(), aux).not(),
        (Bit::Constant(true), b, c) => and(b.not(), c.not(), aux).not(),
        _ => {
            // Three variables: maj, then `b AND c` for its constraint.
            let maj = alloc(value, aux);
            and(b, c, aux);
            maj
        }
    }
}

/// `UInt32`: 32 bits, least significant first.
#[derive(Clone, Copy, Debug)]
struct Word {
    bits: [Bit; 32],
}

impl Word {
    fn constant(value: u32) -> Word {
        Word {
            bits: std::array::from_fn(|i| Bit::Constant((value >> i) & 1 == 1)),
        }
    }

    /// `UInt32::from_bits_be`: the first bit is the most significant.
    fn from_bits_be(bits: &[Bit]) -> Word {
        Word {
            bits: std::array::from_fn(|i| bits[31 - i]),
        }
    }

    fn value(&self) -> u32 {
        self.bits
            .iter()
            .enumerate()
            .fold(0, |v, (i, b)| v | (u32::from(b.value()) << i))
    }

    fn rotr(&self, by: usize) -> Word {
        Word {
            bits: std::array::from_fn(|i| self.bits[(i + by) % 32]),
        }
    }

    fn shr(&self, by: usize) -> Word {
        Word {
            bits: std::array::from_fn(|i| {
                self.bits
                    .get(i + by)
                    .copied()
                    .unwrap_or(Bit::Constant(false))
            }),
        }
    }

    fn xor(&self, other: &Word, aux: &mut Vec<Scalar>) -> Word {
        Word {
            bits: std::array::from_fn(|i| xor(self.bits[i], other.bits[i], aux)),
        }
    }

    fn ch(e: &Word, f: &Word, g: &Word, aux: &mut Vec<Scalar>) -> Word {
        Word {
            bits: std::array::from_fn(|i| ch(e.bits[i], f.bits[i], g.bits[i], aux)),
        }
    }

    fn maj(a: &Word, b: &Word, c: &Word, aux: &mut Vec<Scalar>) -> Word {
        Word {
            bits: std::array::from_fn(|i| maj(a.bits[i], b.bits[i], c.bits[i], aux)),
        }
    }

    /// `UInt32::addmany`.
    fn addmany(operands: &[Word], aux: &mut Vec<Scalar>) -> Word {
        let sum: u64 = operands.iter().map(|w| u64::from(w.value())).sum();
        if operands
            .iter()
            .all(|w| w.bits.iter().all(|b| b.is_constant()))
        {
            return Word::constant(sum as u32);
        }
        // As many bits as the largest possible sum has, whatever the operands' values.
        let max = operands.len() as u64 * u64::from(u32::MAX);
        let width = 64 - max.leading_zeros() as usize;
        let mut bits = [Bit::Constant(false); 32];
        for i in 0..width {
            let bit = alloc((sum >> i) & 1 == 1, aux);
            // The carries above bit 31 are allocated and dropped.
            if let Some(slot) = bits.get_mut(i) {
                *slot = bit;
            }
        }
        Word { bits }
    }
}

/// An addition the gadget has not made yet: the next round's `a` and `e` are sums it makes
/// only when they are read (with the final additions folded in for the last round's).
enum Deferred {
    Sum(Vec<Word>),
    Word(Word),
}

impl Deferred {
    fn compute(self, others: &[Word], aux: &mut Vec<Scalar>) -> Word {
        match self {
            Deferred::Word(w) => w,
            Deferred::Sum(mut operands) => {
                operands.extend_from_slice(others);
                Word::addmany(&operands, aux)
            }
        }
    }
}

const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// One compression of a 512-bit block (`sha256_compression_function`).
fn compress(block: &[Bit], state: &[Word; 8], aux: &mut Vec<Scalar>) -> [Word; 8] {
    let mut w: Vec<Word> = block.chunks(32).map(Word::from_bits_be).collect();
    for i in 16..64 {
        let s0 = w[i - 15]
            .rotr(7)
            .xor(&w[i - 15].rotr(18), aux)
            .xor(&w[i - 15].shr(3), aux);
        let s1 = w[i - 2]
            .rotr(17)
            .xor(&w[i - 2].rotr(19), aux)
            .xor(&w[i - 2].shr(10), aux);
        let next = Word::addmany(&[w[i - 16], s0, w[i - 7], s1], aux);
        w.push(next);
    }

    let mut a = Deferred::Word(state[0]);
    let [_, mut b, mut c, mut d, _, mut f, mut g, mut h] = *state;
    let mut e = Deferred::Word(state[4]);
    for (i, &k) in ROUND_CONSTANTS.iter().enumerate() {
        let new_e = e.compute(&[], aux);
        let s1 = new_e
            .rotr(6)
            .xor(&new_e.rotr(11), aux)
            .xor(&new_e.rotr(25), aux);
        let ch = Word::ch(&new_e, &f, &g, aux);
        let temp1 = [h, s1, ch, Word::constant(k), w[i]];
        let new_a = a.compute(&[], aux);
        let s0 = new_a
            .rotr(2)
            .xor(&new_a.rotr(13), aux)
            .xor(&new_a.rotr(22), aux);
        let maj = Word::maj(&new_a, &b, &c, aux);
        h = g;
        g = f;
        f = new_e;
        e = Deferred::Sum(temp1.iter().copied().chain([d]).collect());
        d = c;
        c = b;
        b = new_a;
        a = Deferred::Sum(temp1.iter().copied().chain([s0, maj]).collect());
    }
    let h0 = a.compute(&[state[0]], aux);
    let h1 = Word::addmany(&[state[1], b], aux);
    let h2 = Word::addmany(&[state[2], c], aux);
    let h3 = Word::addmany(&[state[3], d], aux);
    let h4 = e.compute(&[state[4]], aux);
    let h5 = Word::addmany(&[state[5], f], aux);
    let h6 = Word::addmany(&[state[6], g], aux);
    let h7 = Word::addmany(&[state[7], h], aux);
    [h0, h1, h2, h3, h4, h5, h6, h7]
}

/// Appends to `aux` the values bellpepper's `sha256` circuit allocates for `input` (a whole
/// number of bytes, each byte's most significant bit first), and returns the digest's 256
/// bits as the circuit returns them (each word's most significant bit first).
///
/// # Panics
/// If `input` is not a whole number of bytes, as the gadget does.
pub fn sha256(input: &[Bit], aux: &mut Vec<Scalar>) -> Vec<Bit> {
    assert!(
        input.len().is_multiple_of(8),
        "SHA-256 input of {} bits",
        input.len()
    );
    let length = input.len() as u64;
    let mut padded = input.to_vec();
    padded.push(Bit::Constant(true));
    while !(padded.len() + 64).is_multiple_of(512) {
        padded.push(Bit::Constant(false));
    }
    padded.extend((0..64).rev().map(|i| Bit::Constant((length >> i) & 1 == 1)));

    let mut state = IV.map(Word::constant);
    for block in padded.chunks(512) {
        state = compress(block, &state, aux);
    }
    state
        .iter()
        .flat_map(|w| w.bits.iter().rev().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellpepper::gadgets::sha256::sha256 as sha256_gadget;
    use bellpepper_core::boolean::{AllocatedBit, Boolean};
    use bellpepper_core::ConstraintSystem;
    use bellperson_lite::matrices::Witness;
    use rand::{Rng, SeedableRng};
    use sha2::Digest;

    /// What the input bit `i` is made of: 0 an allocated bit, 1 its negation, 2 a constant.
    fn bits(rng: &mut impl Rng, bytes: usize, kinds: impl Fn(usize) -> u8) -> Vec<(bool, u8)> {
        (0..bytes * 8).map(|i| (rng.gen(), kinds(i))).collect()
    }

    /// The gadget's allocations after the input's, and its digest bits.
    fn gadget(input: &[(bool, u8)]) -> (usize, Vec<Scalar>, Vec<bool>) {
        let mut cs = Witness::default();
        let booleans: Vec<Boolean> = input
            .iter()
            .enumerate()
            .map(|(i, &(value, kind))| match kind {
                2 => Boolean::Constant(value),
                _ => {
                    let bit = AllocatedBit::alloc(cs.namespace(|| format!("in {i}")), Some(value))
                        .unwrap();
                    if kind == 1 {
                        Boolean::Is(bit).not()
                    } else {
                        Boolean::Is(bit)
                    }
                }
            })
            .collect();
        let before = cs.aux.len();
        let digest = sha256_gadget(cs.namespace(|| "sha256"), &booleans).unwrap();
        let digest = digest.iter().map(|b| b.get_value().unwrap()).collect();
        (before, cs.aux[before..].to_vec(), digest)
    }

    fn native(input: &[(bool, u8)]) -> (Vec<Scalar>, Vec<Bit>) {
        let bits: Vec<Bit> = input
            .iter()
            .map(|&(value, kind)| match kind {
                2 => Bit::Constant(value),
                // The gadget's variable holds `value`; the negation reads it inverted.
                1 => Bit::allocated(value).not(),
                _ => Bit::allocated(value),
            })
            .collect();
        let mut aux = Vec::new();
        let digest = sha256(&bits, &mut aux);
        (aux, digest)
    }

    /// The bytes the input bits stand for (most significant bit first).
    fn bytes_of(input: &[(bool, u8)]) -> Vec<u8> {
        input
            .chunks(8)
            .map(|byte| {
                byte.iter().fold(0u8, |acc, &(value, kind)| {
                    (acc << 1) | u8::from(if kind == 1 { !value } else { value })
                })
            })
            .collect()
    }

    fn check(input: &[(bool, u8)], what: &str) {
        let (_, expected, gadget_digest) = gadget(input);
        let (aux, digest) = native(input);
        assert_eq!(aux.len(), expected.len(), "{what}: allocation count");
        let first = aux.iter().zip(&expected).position(|(a, b)| a != b);
        assert_eq!(first, None, "{what}: first differing allocation");
        let digest: Vec<bool> = digest.iter().map(|b| b.value()).collect();
        assert_eq!(digest, gadget_digest, "{what}: digest bits");
        // And it is SHA-256.
        let reference = sha2::Sha256::digest(bytes_of(input));
        let reference: Vec<bool> = reference
            .iter()
            .flat_map(|byte| (0..8).rev().map(move |i| (byte >> i) & 1 == 1))
            .collect();
        assert_eq!(digest, reference, "{what}: SHA-256 digest");
    }

    /// Allocated inputs of the lengths the Filecoin circuits hash (64 bytes: a Merkle node's
    /// two children; 32 bytes; several blocks), then inputs mixing negated and constant bits,
    /// which take the gadget's other branches.
    #[test]
    fn same_values_as_the_gadget() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2501);
        for bytes in [0, 32, 55, 56, 64, 100, 192] {
            check(
                &bits(&mut rng, bytes, |_| 0),
                &format!("{bytes} allocated bytes"),
            );
        }
        for bytes in [32, 64, 128] {
            check(
                &bits(&mut rng, bytes, |i| (i % 3) as u8),
                &format!("{bytes} bytes, kinds by position"),
            );
            let kinds: Vec<u8> = (0..bytes * 8).map(|_| rng.gen_range(0..3)).collect();
            check(
                &bits(&mut rng, bytes, |i| kinds[i]),
                &format!("{bytes} bytes of random kinds"),
            );
            check(
                &bits(&mut rng, bytes, |_| 2),
                &format!("{bytes} constant bytes"),
            );
            check(
                &bits(&mut rng, bytes, |_| 1),
                &format!("{bytes} negated bytes"),
            );
        }
    }

    #[test]
    fn a_wrong_bit_changes_the_witness() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2502);
        let input = bits(&mut rng, 64, |_| 0);
        let (aux, _) = native(&input);
        let mut flipped = input.clone();
        flipped[77].0 = !flipped[77].0;
        let (other, _) = native(&flipped);
        assert_eq!(aux.len(), other.len());
        assert_ne!(aux, other);
    }
}
