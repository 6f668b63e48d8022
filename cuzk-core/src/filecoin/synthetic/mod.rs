//! Synthetic sectors: valid inputs for Filecoin's real circuits at any registered sector
//! size, made without sealing anything.
//!
//! Sealing a 32 GiB sector takes hours of CPU and hundreds of GiB of disk, but a proof only
//! ever opens a few thousand of its nodes. The generators here make exactly what is opened,
//! consistently: the challenges derived as storage-proofs derives them, the values of the
//! challenged nodes (for PoRep, labels computed from their parents in the real graph), and
//! sparse Merkle trees in the real shapes (8-8-0 for 32 GiB) whose untouched subtrees all
//! hash from one default leaf, so a 2^30-leaf tree costs only its opened paths. The results
//! pass storage-proofs' vanilla verifiers and prove with the real circuits; what they lack
//! is a sector behind them (the trees' other leaves are no real data), so they are for
//! benchmarks and tests, never for a chain.
//!
//! # Layout
//! - `tree`: [`SparseTree`], a Merkle tree of a few set leaves in storage-proofs' shapes.
//! - `porep`: [`porep`], a commit-phase-1 output ([`SyntheticPoRep`]).
//! - `post`: [`post`], WinningPoSt and WindowPoSt vanilla proofs ([`SyntheticPoSt`]).
//! - `snap`: [`snap`], SnapDeals (empty sector update) partition proofs ([`SyntheticSnap`]).

mod porep;
mod post;
mod snap;
mod tree;

pub use self::porep::{porep, porep_of_size, SyntheticPoRep};
pub use self::post::{post, post_of_size, SyntheticPoSt};
pub use self::snap::{snap, snap_of_size, SyntheticSnap};
pub use self::tree::{shape_arities, MerklePath, NodeValues, ShapeProof, SparseTree};

use filecoin_hashers::Domain;

use crate::filecoin::FilecoinError;
use rand::Rng;

/// Who the synthetic sector belongs to, and the seed of everything random in it.
#[derive(Clone, Copy, Debug)]
pub struct SynthOptions {
    /// Seeds every random value: the same options make the same bytes.
    pub seed: u64,
    /// The miner whose prover id the sector is made for (it enters the replica id and the
    /// PoSt challenges).
    pub miner_id: u64,
    /// The sector's number (PoRep) or the first sector's (PoSt: sectors are numbered on).
    pub sector_number: u64,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            seed: 0,
            miner_id: 1000,
            sector_number: 1,
        }
    }
}

/// A commitment's 32 bytes.
fn commitment<D: AsRef<[u8]>>(domain: &D) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(domain.as_ref());
    bytes
}

fn synthetic_error(reason: impl Into<String>) -> FilecoinError {
    FilecoinError::Synthetic {
        reason: reason.into(),
    }
}

/// A uniformly random field element below 2^254 (every such value is a BLS12-381 scalar).
fn random_domain<D: Domain>(rng: &mut impl Rng) -> D {
    let mut bytes: [u8; 32] = rng.gen();
    bytes[31] &= 0x3f;
    D::try_from_bytes(&bytes).expect("a value below 2^254 is a field element")
}

#[cfg(test)]
mod tests;
