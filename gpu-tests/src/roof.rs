//! The H200's arithmetic roof, beside which the benchmarks print their figures (issue 23).
//!
//! The card issues about 16.7 T 32-bit integer multiply-adds a second (132 SMs, 64 lanes
//! each, 1.98 GHz); a wide multiply-add (IMAD.WIDE, 32 x 32 -> 64 bits) counts as two. A mixed
//! XYZZ addition of G1 is six Fp products (N^2 + N^2 = 288 wide multiply-adds each, N = 12
//! limbs), two squares ((N^2 + N)/2 + N^2 = 222) and one sum of two products for y (3 N^2 =
//! 432): 2,604 wide multiply-adds, 5,208 of the roof's, so at most about 3.2 G additions a
//! second. Over G2 it is six Fp2 products (two sums of two Fp products each, 2 x 432), two Fp2
//! squares (two Fp products each) and one Fp2 `a*b - c*d` (two sums of four, 2 x 720): 7,776
//! wide, 15,552 of the roof's, about 1.07 G a second. (Before the sums of products and the dedicated square, 2026-12-04,
//! the figures were 6,000 and 18,000: 2.8 and 0.93 G/s.) An MSM's figure counts its bucket
//! additions only (n points into a bucket per window), so its fraction of the roof is a
//! ceiling on how busy the arithmetic units were.

/// 32-bit multiply-adds the H200 issues per second.
pub const H200_INT32_MADDS_PER_SECOND: f64 = 132.0 * 64.0 * 1.98e9;

/// Multiply-adds of one mixed XYZZ addition over G1 (2 x 2,604 wide ones).
pub const G1_MIXED_ADD_MADDS: f64 = 5_208.0;

/// Multiply-adds of one mixed XYZZ addition over G2 (2 x 7,776 wide ones).
pub const G2_MIXED_ADD_MADDS: f64 = 15_552.0;

/// The group an MSM or batch addition works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    G1,
    G2,
}

impl Group {
    /// The most mixed additions a second the H200's integer units allow.
    pub fn additions_roof(self) -> f64 {
        let per_addition = match self {
            Group::G1 => G1_MIXED_ADD_MADDS,
            Group::G2 => G2_MIXED_ADD_MADDS,
        };
        H200_INT32_MADDS_PER_SECOND / per_addition
    }

    /// The fraction of [`Group::additions_roof`] that `additions` in `seconds` reach.
    pub fn fraction_of_roof(self, additions: f64, seconds: f64) -> f64 {
        if seconds <= 0.0 {
            return 0.0;
        }
        additions / seconds / self.additions_roof()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roofs_follow_the_operation_counts() {
        let g1 = Group::G1.additions_roof();
        assert!((3.1e9..3.3e9).contains(&g1), "{g1}");
        let g2 = Group::G2.additions_roof();
        assert!((1.0e9..1.1e9).contains(&g2), "{g2}");
        // A G2 addition costs about three G1 ones: an Fp2 product is about three Fp products.
        assert!((2.9..3.1).contains(&(g1 / g2)), "{g1} {g2}");
        // 1.96 G/s (the 2^26 MSM of 2026-12-04, night) is about 61% of the roof.
        let f = Group::G1.fraction_of_roof(1.96e9, 1.0);
        assert!((0.58..0.64).contains(&f), "{f}");
        assert_eq!(Group::G1.fraction_of_roof(1.0, 0.0), 0.0);
    }
}
