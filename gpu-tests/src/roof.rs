//! The H200's arithmetic roof, beside which the benchmarks print their figures (issue 23).
//!
//! The card issues about 16.7 T 32-bit integer multiply-adds a second (132 SMs, 64 lanes
//! each, 1.98 GHz). A mixed XYZZ addition of G1 is about 6,000 of them on 12-limb Montgomery
//! products, so at most about 2.8 G additions a second; over G2 each Fp product is three (an
//! Fp2 product by Karatsuba), about 18,000 multiply-adds, about 0.93 G a second. An MSM's
//! figure counts its bucket additions only (n points into a bucket per window), so its
//! fraction of the roof is a ceiling on how busy the arithmetic units were.

/// 32-bit multiply-adds the H200 issues per second.
pub const H200_INT32_MADDS_PER_SECOND: f64 = 132.0 * 64.0 * 1.98e9;

/// Multiply-adds of one mixed XYZZ addition over G1.
pub const G1_MIXED_ADD_MADDS: f64 = 6_000.0;

/// Multiply-adds of one mixed XYZZ addition over G2 (three Fp products per Fp2 product).
pub const G2_MIXED_ADD_MADDS: f64 = 3.0 * G1_MIXED_ADD_MADDS;

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
    fn the_roofs_are_the_issue_figures() {
        let g1 = Group::G1.additions_roof();
        assert!((2.7e9..2.9e9).contains(&g1), "{g1}");
        let g2 = Group::G2.additions_roof();
        assert!((g2 * 3.0 - g1).abs() < 1.0, "{g2}");
        // 1.66 G/s (the 2^26 MSM of 2026-12-01) is about 60% of the roof.
        let f = Group::G1.fraction_of_roof(1.66e9, 1.0);
        assert!((0.55..0.65).contains(&f), "{f}");
        assert_eq!(Group::G1.fraction_of_roof(1.0, 0.0), 0.0);
    }
}
