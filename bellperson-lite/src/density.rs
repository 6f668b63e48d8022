//! Density bitmaps: which variables of a query (A, or B) take part in its MSM.
//!
//! The parameters hold a base point only for the variables whose polynomial is not zero, so
//! the k-th base of a query belongs to the k-th set bit of its density bitmap.

/// A growable bitmap that also keeps its count of set bits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Density {
    words: Vec<u64>,
    len: usize,
    ones: usize,
}

impl Density {
    pub fn new() -> Self {
        Self::default()
    }

    /// A bitmap of `len` bits, all set.
    pub fn full(len: usize) -> Self {
        let mut d = Self {
            words: vec![u64::MAX; len.div_ceil(64)],
            len,
            ones: len,
        };
        if !len.is_multiple_of(64) {
            let last = d.words.len() - 1;
            d.words[last] = (1u64 << (len % 64)) - 1;
        }
        d
    }

    /// Appends one clear bit (a new variable, not yet used).
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        if bit {
            self.words[self.len / 64] |= 1 << (self.len % 64);
            self.ones += 1;
        }
        self.len += 1;
    }

    /// Sets bit `index` (the variable is used). Indexes past the end are ignored by design:
    /// callers only mark variables that they allocated.
    pub fn set(&mut self, index: usize) {
        if index >= self.len {
            return;
        }
        let (w, b) = (index / 64, 1u64 << (index % 64));
        if self.words[w] & b == 0 {
            self.words[w] |= b;
            self.ones += 1;
        }
    }

    pub fn get(&self, index: usize) -> bool {
        index < self.len && self.words[index / 64] & (1 << (index % 64)) != 0
    }

    /// Number of bits (variables).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of set bits (variables that take part, and so bases in the parameters).
    pub fn count_ones(&self) -> usize {
        self.ones
    }

    /// The bitmap as little-endian 64-bit words (bit `i` is bit `i % 64` of word `i / 64`),
    /// the layout the GPU backend consumes.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Appends `other` after `self`, as when a circuit synthesizes a part of itself in a
    /// separate constraint system and merges it back (`ConstraintSystem::extend`).
    ///
    /// For an input density, bit 0 of both is the constant one: the two are merged into one
    /// bit instead of appended, because the part's "one" was only a temporary stand-in for
    /// the whole circuit's. This mirrors bellperson so that the merged density, and so the
    /// choice of bases, is the same as in a circuit synthesized in one piece.
    pub fn extend(&mut self, other: &Density, is_input: bool) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = other.clone();
            return;
        }
        let skip = if is_input {
            if other.get(0) {
                self.set(0);
            }
            1
        } else {
            0
        };
        for i in skip..other.len {
            self.push(other.get(i));
        }
    }

    /// Indexes of the set bits, in increasing order.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(w * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_set_and_count() {
        let mut d = Density::new();
        for i in 0..130 {
            d.push(i % 3 == 0);
        }
        assert_eq!(d.len(), 130);
        assert_eq!(d.count_ones(), 44);
        d.set(1);
        d.set(1);
        d.set(500);
        assert_eq!(d.count_ones(), 45);
        assert!(d.get(1) && d.get(129) && !d.get(128) && !d.get(500));
        let ones: Vec<usize> = d.iter_ones().collect();
        assert_eq!(ones.len(), 45);
        assert!(ones.windows(2).all(|w| w[0] < w[1]));
        assert!(ones.iter().all(|&i| d.get(i)));
    }

    #[test]
    fn extend_merges_the_input_one() {
        let mut a = Density::new();
        a.push(true);
        a.push(false);
        let mut b = Density::new();
        b.push(true);
        b.push(true);
        let mut inputs = a.clone();
        inputs.extend(&b, true);
        assert_eq!(inputs.len(), 3);
        assert_eq!(inputs.count_ones(), 2);
        let mut aux = a.clone();
        aux.extend(&b, false);
        assert_eq!(aux.len(), 4);
        assert_eq!(aux.count_ones(), 3);
        let mut empty = Density::new();
        empty.extend(&b, true);
        assert_eq!(empty, b);
    }

    #[test]
    fn full_has_every_bit() {
        for len in [0, 1, 63, 64, 65, 200] {
            let d = Density::full(len);
            assert_eq!(d.count_ones(), len);
            assert_eq!(d.iter_ones().count(), len);
            assert!(!d.get(len));
        }
    }
}
